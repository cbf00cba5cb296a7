// A small client of the engine's TableService, written against the generated Java lite classes
// (clients/android/src/gen/java) the way an Android app would use them: it watches one table
// over gRPC and, whenever it is its seat's turn, checks, calls or folds.
//
// It plays in either of the contract's two ways:
// - over Play (the default): one bidirectional stream carries the seat's view and its acts. An
//   accepted act gets no reply of its own: the update whose action_id is the act's is its answer;
//   a refused one is answered by an ActResult. This is the native clients' way (HTTP/2 end to
//   end), with no call per action.
// - over WatchTable and Act (STUD_TRANSPORT=watch): a server stream for the view and one unary
//   call per action, as browsers must (gRPC-Web and Connect have no bidirectional streams).
//
// It runs on a plain JVM too (scripts/build-android compiles it with Debian's kotlinc; the
// Android smoke test runs it against a real engine). The channel comes from
// ManagedChannelBuilder, so the transport is whichever one is on the classpath: grpc-okhttp in
// an Android app, grpc-netty on the JVM.
//
// Tokens: the lobby's access tokens live minutes (15 by default). Given the lobby's URL and the
// refresh token its log-in answered (STUD_LOBBY, STUD_REFRESH_TOKEN), the bot renews its access
// token by POST /auth/refresh before it expires (Session; the refresh token rotates: each works
// once) and every call carries the current one (BearerAuth). The engine checks a token when a
// call starts: a WatchTable stream outlives its token, and each Act carries a fresh one; a Play
// stream's acts need the stream's own token valid, so the bot opens a new Play stream with the
// renewed token (it replaces the old one, the seat stays) and, should an act still be refused
// TOKEN_EXPIRED, renews, reopens and decides again.
//
// Tables move between engine nodes (ops move or drain a node, a node stops cleanly, a node dies
// and another takes its tables over): the table's stream then ends with UNAVAILABLE and the
// ErrorInfo reason TABLE_MOVED, whose metadata names the new node (`node`) and its gRPC address
// (`grpc_address`). The bot opens a channel there and watches the table again from a fresh
// snapshot (MOVED line); the seat is the same.
//
// A node that dies says nothing: the stream fails UNAVAILABLE with no TABLE_MOVED (connection
// reset, then refused), and another node takes the table over once the dead node's lease has
// run out (docs/operations.md). The bot watches again with a back-off (RETRY lines; 0.5 s
// doubling to 5 s) and, from the second such failure in a row, first asks the lobby where the
// table is now (GET /tables/{id}, its engine_grpc: STUD_LOBBY is needed); when that names
// another node it follows the table there at once (MOVED ... via=lobby), else it backs off.
//
// Usage: TableBot HOST PORT TABLE_ID [HANDS] [DEADLINE_SECONDS]
//   with the player token in the environment variable STUD_TOKEN (never on the command line,
//   where other users of the machine could read it), and STUD_TRANSPORT=play (default) or watch;
//   optionally STUD_LOBBY (the lobby's URL: where a table whose node stopped answering is looked
//   up), STUD_REFRESH_TOKEN and STUD_TOKEN_SECONDS (the access token's expires_in) to renew
//   the token.
// It prints one line per thing it saw or did (SNAPSHOT, EVENT, ACT, REFUSED; RENEWED and
// REOPENED for the token; MOVED when it follows its table to another node; RETRY and LOCATED
// while the table's node does not answer) and a final DONE, and exits 0 once the table started
// hand HANDS + 1 (or closed), 3 on its deadline, 2 on a bad command line, 1 when the stream
// failed for another reason (a refusal).
package stud.example

import com.google.gson.JsonObject
import com.google.gson.JsonParser
import com.google.protobuf.ByteString
import io.grpc.CallOptions
import io.grpc.Channel
import io.grpc.ClientCall
import io.grpc.ClientInterceptor
import io.grpc.ForwardingClientCall
import io.grpc.ManagedChannel
import io.grpc.ManagedChannelBuilder
import io.grpc.Metadata
import io.grpc.MethodDescriptor
import io.grpc.Status
import io.grpc.StatusRuntimeException
import io.grpc.stub.ClientCallStreamObserver
import io.grpc.stub.ClientResponseObserver
import io.grpc.stub.StreamObserver
import stud.v1.ActRequest
import stud.v1.ActResponse
import stud.v1.ActResult
import stud.v1.ActionKind
import stud.v1.LegalAction
import stud.v1.PlayRequest
import stud.v1.PlayResponse
import stud.v1.TableServiceGrpc
import stud.v1.TableSnapshot
import stud.v1.TableStatus
import stud.v1.WatchTableRequest
import stud.v1.WatchTableResponse
import java.io.IOException
import java.net.HttpURLConnection
import java.net.URL
import java.util.UUID
import java.util.concurrent.BlockingQueue
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.system.exitProcess

/** What a stream hands the main thread: a message, an act's answer (Play), its end, or its
 * failure, each with the stream it came from ([source]: a replaced Play stream's are ignored). */
private sealed class Update(val source: Any) {
    class Message(source: Any, val response: WatchTableResponse) : Update(source)
    class Answer(source: Any, val result: ActResult) : Update(source)
    class Completed(source: Any) : Update(source)
    class Failed(source: Any, val status: Status, val trailers: Metadata?) : Update(source)
}

/** The lobby refused to renew the session (revoked, reused, expired): log in again. */
internal class SessionEnded(message: String) : Exception(message)

/**
 * The player's session with the lobby: the access token, renewed by the refresh token at
 * [lobby]'s POST /auth/refresh when less than a fifth of its life ([seconds]) is left. Without
 * a lobby and a refresh token the token is used as it is. One renewal at a time (a refresh token
 * works once); the main thread and gRPC's threads may all ask for the token.
 */
internal class Session(
    private val lobby: String?,
    private var access: String,
    private var refresh: String?,
    seconds: Long?
) {
    private var renewAt = renewTime(seconds)
    var renewals = 0
        private set

    private val renewable get() = lobby != null && refresh != null

    private fun renewTime(seconds: Long?): Long =
        if (seconds == null || seconds <= 0) Long.MAX_VALUE else System.nanoTime() + seconds * 800_000_000L

    /** The token to send now: renewed first when it is due. A failed renewal keeps the old
     * token (the call may be refused; the next one tries again a second later). */
    @Synchronized
    fun token(): String {
        if (renewable && System.nanoTime() >= renewAt) {
            try {
                renew(access)
            } catch (error: IOException) {
                println("RENEW_FAILED error=${error.javaClass.simpleName} message=${error.message ?: ""}")
                renewAt = System.nanoTime() + 1_000_000_000L
            }
        }
        return access
    }

    /** Nanoseconds until the token is due for renewal (Long.MAX_VALUE: never). */
    @Synchronized
    fun nanosUntilDue(): Long = if (!renewable) Long.MAX_VALUE else maxOf(0L, renewAt - System.nanoTime())

    /** A new token in place of [stale] (one a server refused, or one due); if it was renewed
     * meanwhile, the current one. Throws SessionEnded when the lobby refuses the refresh token. */
    @Synchronized
    fun renew(stale: String): String {
        if (stale != access) return access
        val url = lobby ?: throw SessionEnded("no lobby to renew the token at (STUD_LOBBY)")
        val token = refresh ?: throw SessionEnded("no refresh token (STUD_REFRESH_TOKEN)")
        val connection = URL(url.trimEnd('/') + "/auth/refresh").openConnection() as HttpURLConnection
        try {
            connection.requestMethod = "POST"
            connection.connectTimeout = 10_000
            connection.readTimeout = 10_000
            connection.doOutput = true
            connection.setRequestProperty("content-type", "application/json")
            val body = JsonObject()
            body.addProperty("refresh_token", token)
            connection.outputStream.use { it.write(body.toString().toByteArray(Charsets.UTF_8)) }
            val status = connection.responseCode
            val stream = if (status < 400) connection.inputStream else connection.errorStream
            val text = stream?.bufferedReader(Charsets.UTF_8)?.use { it.readText() } ?: ""
            val answer = runCatching { JsonParser.parseString(text).asJsonObject }.getOrNull()
            if (status != 200 || answer == null) {
                val code = answer?.get("code")?.asString ?: "http_$status"
                if (status in 400..499) {
                    refresh = null
                    throw SessionEnded("the lobby ended the session: $code")
                }
                throw IOException("POST /auth/refresh answered $status $code")
            }
            access = answer.get("access_token").asString
            refresh = answer.get("refresh_token").asString
            val seconds = answer.get("expires_in").asLong
            renewAt = renewTime(seconds)
            renewals += 1
            println("RENEWED renewals=$renewals expires_in=$seconds")
            return access
        } finally {
            connection.disconnect()
        }
    }
}

private val AUTHORIZATION: Metadata.Key<String> = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER)

/** Puts the session's current token on every call as it starts. */
private class BearerAuth(private val session: Session) : ClientInterceptor {
    override fun <Q, R> interceptCall(method: MethodDescriptor<Q, R>, options: CallOptions, next: Channel): ClientCall<Q, R> =
        object : ForwardingClientCall.SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
            override fun start(listener: Listener<R>, headers: Metadata) {
                headers.put(AUTHORIZATION, "Bearer ${session.token()}")
                super.start(listener, headers)
            }
        }
}

/** The order in which the bot picks among the legal actions: passive first, fold last. */
private val PREFERENCE = listOf(
    ActionKind.ACTION_KIND_CHECK,
    ActionKind.ACTION_KIND_CALL,
    ActionKind.ACTION_KIND_BRING_IN,
    ActionKind.ACTION_KIND_COMPLETE,
    ActionKind.ACTION_KIND_FOLD,
    // A showdown whose profile lets him choose (docs/rules.md): show, rather than let the
    // clock decide for him.
    ActionKind.ACTION_KIND_SHOW
)

/** The legal action the bot takes, or null when none it knows is offered. */
internal fun choose(legal: List<LegalAction>): LegalAction? =
    PREFERENCE.asSequence().mapNotNull { kind -> legal.firstOrNull { it.kind == kind } }.firstOrNull()

private fun describe(snapshot: TableSnapshot): String {
    val seats = snapshot.seatsList.joinToString(",") { seat ->
        val cards = (seat.downCardsList + seat.upCardsList).joinToString("")
        "${seat.number}:${seat.playerId}:${seat.stack}" + if (cards.length == 0) "" else ":$cards"
    }
    val legal = snapshot.legalActionsList.joinToString(",") { it.kind.name.removePrefix("ACTION_KIND_") }
    return "table=${snapshot.table} status=${snapshot.status.name} viewer=${snapshot.viewerSeat} " +
        "hand=${snapshot.handNumber} street=${snapshot.street.name} turn=${snapshot.turnSeat} " +
        "pot=${snapshot.potTotal} seats=$seats legal=$legal"
}

private val STATUS_DETAILS: Metadata.Key<ByteArray> =
    Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER)

/** The length-delimited fields numbered [number] in the encoded message [message]. */
private fun lengthDelimited(message: ByteString, number: Int): List<ByteString> {
    val input = message.newCodedInput()
    val found = ArrayList<ByteString>()
    while (true) {
        val tag = input.readTag()
        if (tag == 0) return found
        // Wire type 2 (length-delimited) in the tag's low three bits.
        if (tag == (number shl 3) or 2) found.add(input.readBytes()) else input.skipField(tag)
    }
}

/**
 * The ErrorInfo reason of a failed call: its trailer `grpc-status-details-bin` holds a
 * google.rpc.Status (details = field 3, each a google.protobuf.Any: type_url 1, value 2) with one
 * google.rpc.ErrorInfo (reason = field 1). An app reads it with proto-google-common-protos
 * (com.google.rpc.Status through `ProtoLiteUtils.metadataMarshaller`, then ErrorInfo.parseFrom of
 * the detail's value); Debian packages no such jar, and these few fields are all the bot needs.
 * Empty when the call failed without one (a network error, say).
 */
internal fun errorReason(error: StatusRuntimeException): String = errorInfo(error.trailers)?.first ?: ""

/**
 * The ErrorInfo of a failed call's trailers, as (reason, metadata): metadata is ErrorInfo's
 * field 3, a map<string, string> (each entry a message: key 1, value 2). Null without one.
 */
internal fun errorInfo(trailers: Metadata?): Pair<String, Map<String, String>>? {
    val details = trailers?.get(STATUS_DETAILS) ?: return null
    for (any in lengthDelimited(ByteString.copyFrom(details), 3)) {
        val typeUrl = lengthDelimited(any, 1).firstOrNull()?.toStringUtf8() ?: continue
        if (!typeUrl.endsWith("/google.rpc.ErrorInfo")) continue
        val value = lengthDelimited(any, 2).firstOrNull() ?: continue
        val reason = lengthDelimited(value, 1).firstOrNull()?.toStringUtf8() ?: ""
        val metadata = lengthDelimited(value, 3).associate { entry ->
            val key = lengthDelimited(entry, 1).firstOrNull()?.toStringUtf8() ?: ""
            key to (lengthDelimited(entry, 2).firstOrNull()?.toStringUtf8() ?: "")
        }
        return reason to metadata
    }
    return null
}

/** Where a failed stream's table went: the new node's gRPC address of an UNAVAILABLE /
 * TABLE_MOVED refusal (ErrorInfo metadata `grpc_address`), or null for any other failure. */
internal fun movedTo(status: Status, trailers: Metadata?): String? {
    if (status.code != Status.Code.UNAVAILABLE) return null
    val (reason, metadata) = errorInfo(trailers) ?: return null
    if (reason != "TABLE_MOVED") return null
    return metadata["grpc_address"]?.ifEmpty { null }
}

/** Whether a failed stream's node may just not be answering (died, restarting, its database
 * away): UNAVAILABLE but no move to follow, or a broken connection (no ErrorInfo at all).
 * Those are retried; any other failure is the engine's refusal, final. */
internal fun notAnswering(status: Status, trailers: Metadata?): Boolean = when (status.code) {
    Status.Code.UNAVAILABLE -> movedTo(status, trailers) == null
    Status.Code.UNKNOWN, Status.Code.INTERNAL -> errorInfo(trailers) == null
    else -> false
}

/**
 * The gRPC address of the engine node serving table [tableId] now, as the lobby at [lobby]
 * says (GET /tables/{id}, `engine_grpc`; the player's [token]), or null when it cannot say (it
 * cannot be reached, or refuses: not seated there any more). One LOCATED line either way.
 */
internal fun locate(lobby: String, tableId: String, token: String): String? {
    val connection = URL(lobby.trimEnd('/') + "/tables/" + tableId).openConnection() as HttpURLConnection
    try {
        connection.connectTimeout = 5_000
        connection.readTimeout = 5_000
        connection.setRequestProperty("authorization", "Bearer $token")
        val status = connection.responseCode
        val stream = if (status < 400) connection.inputStream else connection.errorStream
        val text = stream?.bufferedReader(Charsets.UTF_8)?.use { it.readText() } ?: ""
        val answer = runCatching { JsonParser.parseString(text).asJsonObject }.getOrNull()
        val address = if (status == 200) answer?.get("engine_grpc")?.asString?.ifEmpty { null } else null
        println("LOCATED status=$status address=${address ?: ""}")
        return address
    } catch (error: IOException) {
        println("LOCATED status=0 address= error=${error.javaClass.simpleName}")
        return null
    } finally {
        connection.disconnect()
    }
}

/** A channel to an engine node's gRPC address, "host:port" (an IPv6 host in brackets). */
internal fun channelTo(address: String): ManagedChannel =
    ManagedChannelBuilder.forTarget(address).usePlaintext().build()

/** One engine node's channel and the bot's ways of playing through it. */
private class Link(
    val address: String,
    val channel: ManagedChannel,
    private val transport: String,
    private val session: Session,
    private val updates: BlockingQueue<Update>,
    private val table: String
) {
    /** Over WatchTable and Act (STUD_TRANSPORT=watch); null over Play. */
    val unary: WatchAndAct? = if (transport == "watch") WatchAndAct(channel, session) else null

    /** A new Play stream on the table through this node. */
    fun openPlay(): PlayStream = PlayStream(channel, session, updates).open(table)

    fun close() {
        channel.shutdownNow()
        channel.awaitTermination(5, TimeUnit.SECONDS)
    }
}

/** The seat's view over WatchTable, its actions over unary Act calls. */
private class WatchAndAct(channel: ManagedChannel, private val session: Session) {
    private val auth = BearerAuth(session)
    private val watcher = TableServiceGrpc.newStub(channel).withInterceptors(auth)
    private val actor = TableServiceGrpc.newBlockingStub(channel).withInterceptors(auth)

    /** Starts the stream: its callbacks only queue, the main thread decides and calls Act, so a
     * slow Act never holds up the stream's reading. */
    fun open(table: String, updates: BlockingQueue<Update>) {
        watcher.watchTable(
            WatchTableRequest.newBuilder().setTable(table).build(),
            object : StreamObserver<WatchTableResponse> {
                override fun onNext(value: WatchTableResponse) {
                    updates.put(Update.Message(this@WatchAndAct, value))
                }

                override fun onError(t: Throwable) {
                    updates.put(Update.Failed(this@WatchAndAct, Status.fromThrowable(t), Status.trailersFromThrowable(t)))
                }

                override fun onCompleted() {
                    updates.put(Update.Completed(this@WatchAndAct))
                }
            }
        )
    }

    /** Takes one action; a refusal is a StatusRuntimeException. A token that expired on the
     * way (TOKEN_EXPIRED) is renewed and the same act sent again: its action id makes that safe. */
    fun act(request: ActRequest): ActResponse {
        val sentWith = session.token()
        try {
            return actor.withDeadlineAfter(10, TimeUnit.SECONDS).act(request)
        } catch (error: StatusRuntimeException) {
            if (errorReason(error) != "TOKEN_EXPIRED") throw error
            session.renew(sentWith)
            return actor.withDeadlineAfter(10, TimeUnit.SECONDS).act(request)
        }
    }
}

/** The seat's view and its actions on one Play stream. */
private class PlayStream(
    channel: ManagedChannel,
    private val session: Session,
    private val updates: BlockingQueue<Update>
) : ClientResponseObserver<PlayRequest, PlayResponse> {
    private val stub = TableServiceGrpc.newStub(channel).withInterceptors(BearerAuth(session))
    private var requests: ClientCallStreamObserver<PlayRequest>? = null
    /** The token the stream was opened with: its acts are taken while it is valid. */
    var openedWith = ""
        private set

    @Synchronized
    override fun beforeStart(requestStream: ClientCallStreamObserver<PlayRequest>) {
        requests = requestStream
    }

    // The callbacks only queue, as WatchAndAct's do.
    override fun onNext(value: PlayResponse) {
        when (value.responseCase) {
            PlayResponse.ResponseCase.UPDATE -> updates.put(Update.Message(this, value.update))
            PlayResponse.ResponseCase.ACT -> updates.put(Update.Answer(this, value.act))
            // A kind of message a newer server may add: nothing this bot needs.
            else -> Unit
        }
    }

    override fun onError(t: Throwable) {
        updates.put(Update.Failed(this, Status.fromThrowable(t), Status.trailersFromThrowable(t)))
    }

    override fun onCompleted() {
        updates.put(Update.Completed(this))
    }

    /** Opens the call and sends its first request, the table to watch. */
    fun open(table: String): PlayStream {
        openedWith = session.token()  // (what BearerAuth puts on the call as it starts)
        stub.play(this)
        send(PlayRequest.newBuilder().setWatch(WatchTableRequest.newBuilder().setTable(table)).build())
        return this
    }

    /** Sends one act: its answer comes on the stream. */
    fun act(request: ActRequest) {
        send(PlayRequest.newBuilder().setAct(request).build())
    }

    // A StreamObserver is not thread-safe: every send goes through this lock (here only the main
    // thread sends, but an app's UI thread and a timer might both).
    @Synchronized
    private fun send(request: PlayRequest) {
        checkNotNull(requests) { "the Play call is not open" }.onNext(request)
    }

    /** Ends the call: half-closing says no more acts follow, but the view would go on until the
     * call is cancelled (the contract), so it is cancelled right after. */
    @Synchronized
    fun close() {
        val stream = requests ?: return
        stream.onCompleted()
        stream.cancel("TableBot is done", null)
    }
}

/** How many moves in a row (with no message between them) the bot follows before it gives up
 * (a table that keeps moving at once is a fault worth seeing, not a loop). */
private const val MAX_FOLLOWS = 10
/** From this many failures in a row of a node not answering, each retry first asks the lobby
 * where the table is (one is a blip: the node may answer again at once). */
private const val LOCATE_AFTER = 2
/** The back-off between retries at a node not answering: doubling from the first to the last. */
private const val FIRST_DELAY_MS = 500L
private const val MAX_DELAY_MS = 5_000L

/** An act sent on the Play stream and not answered yet. */
private class Pending(val actionId: String, val hand: Long, val kind: ActionKind)

private class Bot(
    private val table: String,
    private val hands: Long,
    private val deadline: Long,
    private val updates: BlockingQueue<Update>,
    private val session: Session,
    /** The node the table is served by, as far as the bot knows. */
    private var link: Link,
    /** A link to another node (its gRPC address), for a table that moved there. */
    private val connect: (String) -> Link,
    /** Where the lobby says the table is now (a gRPC address; null: it cannot say), or null
     * without a lobby (STUD_LOBBY). */
    private val locate: (() -> String?)?
) {
    /** Over Play, the current stream (a renewed token opens the next one). */
    var play: PlayStream? = null
        private set
    private var follows = 0
    /** Failures in a row of the table's node not answering, and the next back-off. */
    private var failures = 0
    private var delayMs = FIRST_DELAY_MS

    init {
        open()
    }

    /** Watches the table through [link]: a Play stream, or WatchTable (acts then go as Act). */
    private fun open() {
        val unary = link.unary
        if (unary == null) play = link.openPlay() else unary.open(table, updates)
    }

    /** The stream whose updates count now (a replaced or abandoned one's are ignored). */
    private val listening: Any? get() = play ?: link.unary
    private var messages = 0
    private var actions = 0
    private var lastSequence = -1L
    /** The newest update, the one the bot decides on. */
    private var latest: WatchTableResponse? = null
    /** The update of the bot's last action: it acts once per update, even when refused. */
    private var actedOn = -1L
    /** The change of the last accepted action: older updates are stale, while that change's own
     * may already hand us the next turn (a new street can open on us). */
    private var actedThrough = -1L
    /** Over Play, the act awaiting its update or refusal: no other is sent meanwhile. */
    private var pending: Pending? = null

    /** Plays until the hands are done; returns the exit code. */
    fun run(): Int {
        var exitCode = 0
        loop@ while (true) {
            val left = deadline - System.nanoTime()
            // Over Play, also wake when the token is due: the stream is opened anew with the next.
            val wait = if (play != null) minOf(left, session.nanosUntilDue()) else left
            val update = if (wait > 0) updates.poll(wait, TimeUnit.NANOSECONDS) else null
            if (update != null && update.source !== listening) continue@loop  // a replaced stream's
            when (update) {
                null -> {
                    if (deadline - System.nanoTime() > 0) {
                        reopenWhenRenewed()
                        continue@loop
                    }
                    println("DEADLINE messages=$messages actions=$actions")
                    exitCode = 3
                    break@loop
                }
                is Update.Failed -> {
                    val address = movedTo(update.status, update.trailers)
                    if (address != null && address != link.address && follows < MAX_FOLLOWS) {
                        follow(address, errorInfo(update.trailers)?.second?.get("node") ?: "")
                        continue@loop
                    }
                    if (notAnswering(update.status, update.trailers)) {
                        retry(update.status)
                        continue@loop
                    }
                    println("STREAM_FAILED code=${update.status.code} message=${update.status.description}")
                    exitCode = 1
                    break@loop
                }
                is Update.Completed -> {
                    println("STREAM_ENDED")
                    break@loop
                }
                is Update.Answer -> answered(update.result)
                is Update.Message -> {
                    val snapshot = update.response.snapshot
                    received(update.response)
                    if (snapshot.handNumber > hands || snapshot.status == TableStatus.TABLE_STATUS_CLOSED) {
                        break@loop
                    }
                }
            }
            reopenWhenRenewed()
            actIfOurTurn()
        }
        play?.close()
        println("DONE messages=$messages actions=$actions last_sequence=$lastSequence")
        System.out.flush()
        return exitCode
    }

    /** The table moved to the node at [address]: a channel there, and the table watched again
     * from a fresh snapshot (the seat is the same; an act waiting for its answer on the old
     * stream is forgotten: the turn is decided again on the new snapshot). */
    private fun follow(address: String, node: String, via: String = "engine") {
        follows += 1
        println(if (via == "engine") "MOVED node=$node address=$address" else "MOVED address=$address via=$via")
        val old = link
        link = connect(address)
        play = null
        watchAgain()
        old.close()
    }

    /** Watches the table again through [link] from a fresh snapshot (an act waiting for its
     * answer on the failed stream is forgotten: the turn is decided again). */
    private fun watchAgain() {
        play = null  // a failed stream (or the moved node's): nothing more comes on it
        pending = null
        latest = null
        lastSequence = -1L
        actedOn = -1L
        actedThrough = -1L
        open()
    }

    /** The table's node did not answer ([status]): from the LOCATE_AFTER-th time in a row the
     * lobby is asked where the table is now, and a table elsewhere is followed there at once;
     * otherwise it is watched again at the same node after the back-off. */
    private fun retry(status: Status) {
        failures += 1
        println("RETRY failures=$failures code=${status.code} delay_ms=$delayMs")
        if (failures >= LOCATE_AFTER && follows < MAX_FOLLOWS) {
            val found = locate?.invoke()
            if (found != null && found != link.address) {
                follow(found, "", "lobby")
                return
            }
        }
        val left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())
        Thread.sleep(maxOf(0L, minOf(delayMs, left)))
        delayMs = minOf(delayMs * 2, MAX_DELAY_MS)
        watchAgain()
    }

    private fun received(response: WatchTableResponse) {
        messages += 1
        follows = 0  // the table is served here: a later move is followed again
        failures = 0
        delayMs = FIRST_DELAY_MS
        // A stream's first message is a full snapshot; it may carry events too (the end of a
        // hand a restart or takeover ended, told until the next hand ends).
        val first = lastSequence < 0
        if (!first && response.sequence != lastSequence + 1) {
            println("GAP previous=$lastSequence sequence=${response.sequence}")
        }
        lastSequence = response.sequence
        latest = response
        if (first || response.eventsCount == 0) {
            println("SNAPSHOT sequence=${response.sequence} ${describe(response.snapshot)}")
        }
        if (response.eventsCount > 0) {
            val kinds = response.eventsList.joinToString(",") { it.kindCase.name }
            println("EVENT sequence=${response.sequence} hand=${response.getEvents(0).handNumber} kinds=$kinds")
        }
        // Over Play, our own accepted act comes back as the change that carries it, named by its
        // action id; the action is the first of its events.
        val waiting = pending
        if (waiting != null && response.actionId == waiting.actionId) {
            pending = null
            val taken = response.getEvents(0).actionTaken
            accepted(waiting.hand, taken.seat, taken.kind, taken.amount, response.sequence, response.actionId)
        }
    }

    /** An ActResult on the Play stream: a refusal, or the first answer to a repeated action id. */
    private fun answered(result: ActResult) {
        val waiting = pending
        if (waiting == null || result.actionId != waiting.actionId) return
        pending = null
        when (result.resultCase) {
            ActResult.ResultCase.REFUSED -> {
                val refused = result.refused
                val code = Status.fromCodeValue(refused.code).code
                refusedLine(waiting.hand, waiting.kind, code, refused.reason, refused.message)
                if (refused.reason == "TOKEN_EXPIRED") {
                    // The stream's token expired before it was renewed (a stalled bot): a new
                    // stream with a new token, and the turn decided again on its snapshot.
                    renewing { session.renew(checkNotNull(play).openedWith) }
                    reopenWhenRenewed()
                    actedOn = -1L
                }
            }
            ActResult.ResultCase.ACCEPTED -> {
                val answer = result.accepted
                val action = answer.action
                accepted(waiting.hand, action.seat, action.kind, action.amount, answer.sequence, result.actionId)
            }
            else -> Unit
        }
    }

    private fun accepted(hand: Long, seat: Int, kind: ActionKind, amount: Long, sequence: Long, actionId: String) {
        actions += 1
        actedThrough = sequence
        println("ACT hand=$hand seat=$seat kind=${kind.name} amount=$amount sequence=$sequence action_id=$actionId")
    }

    // The turn may have moved on (the clock acted): the table refuses, nothing changes, and a
    // later update tells what to do. The message (for people) goes last: it has spaces.
    private fun refusedLine(hand: Long, kind: ActionKind, code: Status.Code, reason: String, message: String?) {
        println("REFUSED hand=$hand kind=${kind.name} code=$code reason=$reason message=${message ?: ""}")
    }

    /** Over Play, once the session's token is not the one the stream was opened with: a new
     * stream with it (it replaces the old one at the table; the seat stays), unless an act waits
     * for its answer on the old one. */
    private fun reopenWhenRenewed() {
        val current = play ?: return
        if (pending != null || current.openedWith == session.token()) return
        val next = link.openPlay()
        play = next
        current.close()
        lastSequence = -1L  // the new stream starts from a fresh snapshot
        println("REOPENED renewals=${session.renewals}")
    }

    /** Acts on the newest update when it hands us the turn and nothing is left to read or to
     * hear back: anything queued behind it would make it stale. */
    private fun actIfOurTurn() {
        val response = latest ?: return
        if (pending != null || updates.isNotEmpty()) return
        if (response.sequence <= actedOn || response.sequence < actedThrough) return
        val snapshot = response.snapshot
        if (snapshot.turnSeat == 0 || snapshot.turnSeat != snapshot.viewerSeat) return
        val action = choose(snapshot.legalActionsList) ?: return
        actedOn = response.sequence
        val request = ActRequest.newBuilder()
            .setTable(table)
            .setHandNumber(snapshot.handNumber)
            .setKind(action.kind)
            .setActionId(UUID.randomUUID().toString())
        if (action.minAmount < action.maxAmount) request.amount = action.minAmount
        val stream = play
        if (stream != null) {
            // The answer comes on the stream; until it does, the bot sends nothing else.
            pending = Pending(request.actionId, snapshot.handNumber, action.kind)
            stream.act(request.build())
            return
        }
        try {
            val answer = checkNotNull(link.unary).act(request.build())
            val taken = answer.action
            accepted(snapshot.handNumber, taken.seat, taken.kind, taken.amount, answer.sequence, taken.actionId)
        } catch (error: StatusRuntimeException) {
            val status = error.status
            refusedLine(snapshot.handNumber, action.kind, status.code, errorReason(error), status.description)
        } catch (error: SessionEnded) {
            println("SESSION_ENDED message=${error.message ?: ""}")
        } catch (error: IOException) {
            println("RENEW_FAILED error=${error.javaClass.simpleName} message=${error.message ?: ""}")
        }
    }

    /** A renewal whose failure is reported, not thrown: the bot plays on with what it has. */
    private fun renewing(renewal: () -> Unit) {
        try {
            renewal()
        } catch (error: SessionEnded) {
            println("SESSION_ENDED message=${error.message ?: ""}")
        } catch (error: IOException) {
            println("RENEW_FAILED error=${error.javaClass.simpleName} message=${error.message ?: ""}")
        }
    }
}

fun main(args: Array<String>) {
    if (args.size < 3) {
        System.err.println(
            "usage: TableBot HOST PORT TABLE_ID [HANDS] [DEADLINE_SECONDS] " +
                "(token in STUD_TOKEN; STUD_TRANSPORT=play (default) or watch)"
        )
        exitProcess(2)
    }
    val token = System.getenv("STUD_TOKEN")
    if (token.isNullOrEmpty()) {
        System.err.println("TableBot: set STUD_TOKEN to the player token")
        exitProcess(2)
    }
    val transport = System.getenv("STUD_TRANSPORT").let { if (it.isNullOrEmpty()) "play" else it }
    if (transport != "play" && transport != "watch") {
        System.err.println(
            "TableBot: STUD_TRANSPORT must be play (one Play stream) or watch (WatchTable and Act), " +
                "not $transport"
        )
        exitProcess(2)
    }
    val host = args[0]
    val port = args[1].toInt()
    val table = "tables/" + args[2]
    val hands = if (args.size > 3) args[3].toLong() else 1L
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(if (args.size > 4) args[4].toLong() else 60L)

    val session = Session(
        System.getenv("STUD_LOBBY")?.ifEmpty { null },
        token,
        System.getenv("STUD_REFRESH_TOKEN")?.ifEmpty { null },
        System.getenv("STUD_TOKEN_SECONDS")?.toLongOrNull()
    )
    val updates = LinkedBlockingQueue<Update>()
    val first = ManagedChannelBuilder.forAddress(host, port).usePlaintext().build()
    val links = mutableListOf(Link("$host:$port", first, transport, session, updates, table))
    val lobby = System.getenv("STUD_LOBBY")?.ifEmpty { null }
    val bot = Bot(
        table,
        hands,
        deadline,
        updates,
        session,
        links[0],
        { address -> Link(address, channelTo(address), transport, session, updates, table).also { links.add(it) } },
        lobby?.let { url -> { locate(url, args[2], session.token()) } }
    )
    val exitCode = bot.run()
    links.forEach { it.close() }
    exitProcess(exitCode)
}
