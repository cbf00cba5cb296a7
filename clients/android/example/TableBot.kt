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
// Usage: TableBot HOST PORT TABLE_ID [HANDS] [DEADLINE_SECONDS]
//   with the player token in the environment variable STUD_TOKEN (never on the command line,
//   where other users of the machine could read it), and STUD_TRANSPORT=play (default) or watch.
// It prints one line per thing it saw or did (SNAPSHOT, EVENT, ACT, REFUSED) and a final DONE,
// and exits 0 once the table started hand HANDS + 1 (or closed), 3 on its deadline, 2 on a bad
// command line, 1 when the stream failed.
package stud.example

import com.google.protobuf.ByteString
import io.grpc.ManagedChannel
import io.grpc.ManagedChannelBuilder
import io.grpc.Metadata
import io.grpc.Status
import io.grpc.StatusRuntimeException
import io.grpc.stub.ClientCallStreamObserver
import io.grpc.stub.ClientResponseObserver
import io.grpc.stub.MetadataUtils
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
import java.util.UUID
import java.util.concurrent.BlockingQueue
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.system.exitProcess

/** What the stream hands the main thread: a message, an act's answer (Play), its end, or its failure. */
private sealed class Update {
    class Message(val response: WatchTableResponse) : Update()
    class Answer(val result: ActResult) : Update()
    object Completed : Update()
    class Failed(val status: Status) : Update()
}

/** The order in which the bot picks among the legal actions: passive first, fold last. */
private val PREFERENCE = listOf(
    ActionKind.ACTION_KIND_CHECK,
    ActionKind.ACTION_KIND_CALL,
    ActionKind.ACTION_KIND_BRING_IN,
    ActionKind.ACTION_KIND_COMPLETE,
    ActionKind.ACTION_KIND_FOLD
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
internal fun errorReason(error: StatusRuntimeException): String {
    val details = error.trailers?.get(STATUS_DETAILS) ?: return ""
    for (any in lengthDelimited(ByteString.copyFrom(details), 3)) {
        val typeUrl = lengthDelimited(any, 1).firstOrNull()?.toStringUtf8() ?: continue
        if (!typeUrl.endsWith("/google.rpc.ErrorInfo")) continue
        val value = lengthDelimited(any, 2).firstOrNull() ?: continue
        return lengthDelimited(value, 1).firstOrNull()?.toStringUtf8() ?: ""
    }
    return ""
}

/** The seat's view over WatchTable, its actions over unary Act calls. */
private class WatchAndAct(channel: ManagedChannel, headers: Metadata) {
    private val auth = MetadataUtils.newAttachHeadersInterceptor(headers)
    private val watcher = TableServiceGrpc.newStub(channel).withInterceptors(auth)
    private val actor = TableServiceGrpc.newBlockingStub(channel).withInterceptors(auth)

    /** Starts the stream: its callbacks only queue, the main thread decides and calls Act, so a
     * slow Act never holds up the stream's reading. */
    fun open(table: String, updates: BlockingQueue<Update>) {
        watcher.watchTable(
            WatchTableRequest.newBuilder().setTable(table).build(),
            object : StreamObserver<WatchTableResponse> {
                override fun onNext(value: WatchTableResponse) {
                    updates.put(Update.Message(value))
                }

                override fun onError(t: Throwable) {
                    updates.put(Update.Failed(Status.fromThrowable(t)))
                }

                override fun onCompleted() {
                    updates.put(Update.Completed)
                }
            }
        )
    }

    /** Takes one action; a refusal is a StatusRuntimeException. */
    fun act(request: ActRequest): ActResponse = actor.withDeadlineAfter(10, TimeUnit.SECONDS).act(request)
}

/** The seat's view and its actions on one Play stream. */
private class PlayStream(
    channel: ManagedChannel,
    headers: Metadata,
    private val updates: BlockingQueue<Update>
) : ClientResponseObserver<PlayRequest, PlayResponse> {
    private val stub = TableServiceGrpc.newStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
    private var requests: ClientCallStreamObserver<PlayRequest>? = null

    @Synchronized
    override fun beforeStart(requestStream: ClientCallStreamObserver<PlayRequest>) {
        requests = requestStream
    }

    // The callbacks only queue, as WatchAndAct's do.
    override fun onNext(value: PlayResponse) {
        when (value.responseCase) {
            PlayResponse.ResponseCase.UPDATE -> updates.put(Update.Message(value.update))
            PlayResponse.ResponseCase.ACT -> updates.put(Update.Answer(value.act))
            // A kind of message a newer server may add: nothing this bot needs.
            else -> Unit
        }
    }

    override fun onError(t: Throwable) {
        updates.put(Update.Failed(Status.fromThrowable(t)))
    }

    override fun onCompleted() {
        updates.put(Update.Completed)
    }

    /** Opens the call and sends its first request, the table to watch. */
    fun open(table: String) {
        stub.play(this)
        send(PlayRequest.newBuilder().setWatch(WatchTableRequest.newBuilder().setTable(table)).build())
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

/** An act sent on the Play stream and not answered yet. */
private class Pending(val actionId: String, val hand: Long, val kind: ActionKind)

private class Bot(
    private val table: String,
    private val hands: Long,
    private val deadline: Long,
    private val updates: BlockingQueue<Update>,
    private val unary: WatchAndAct?,
    private val play: PlayStream?
) {
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
            val update = if (left > 0) updates.poll(left, TimeUnit.NANOSECONDS) else null
            when (update) {
                null -> {
                    println("DEADLINE messages=$messages actions=$actions")
                    exitCode = 3
                    break@loop
                }
                is Update.Failed -> {
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
            actIfOurTurn()
        }
        println("DONE messages=$messages actions=$actions last_sequence=$lastSequence")
        System.out.flush()
        return exitCode
    }

    private fun received(response: WatchTableResponse) {
        messages += 1
        if (lastSequence >= 0 && response.sequence != lastSequence + 1) {
            println("GAP previous=$lastSequence sequence=${response.sequence}")
        }
        lastSequence = response.sequence
        latest = response
        if (response.eventsCount > 0) {
            val kinds = response.eventsList.joinToString(",") { it.kindCase.name }
            println("EVENT sequence=${response.sequence} hand=${response.getEvents(0).handNumber} kinds=$kinds")
        } else {
            println("SNAPSHOT sequence=${response.sequence} ${describe(response.snapshot)}")
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
        if (play != null) {
            // The answer comes on the stream; until it does, the bot sends nothing else.
            pending = Pending(request.actionId, snapshot.handNumber, action.kind)
            play.act(request.build())
            return
        }
        try {
            val answer = checkNotNull(unary).act(request.build())
            val taken = answer.action
            accepted(snapshot.handNumber, taken.seat, taken.kind, taken.amount, answer.sequence, taken.actionId)
        } catch (error: StatusRuntimeException) {
            val status = error.status
            refusedLine(snapshot.handNumber, action.kind, status.code, errorReason(error), status.description)
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

    val headers = Metadata()
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer $token")
    val channel = ManagedChannelBuilder.forAddress(host, port).usePlaintext().build()
    val updates = LinkedBlockingQueue<Update>()
    val exitCode = if (transport == "play") {
        val play = PlayStream(channel, headers, updates)
        play.open(table)
        val code = Bot(table, hands, deadline, updates, null, play).run()
        play.close()
        code
    } else {
        val unary = WatchAndAct(channel, headers)
        unary.open(table, updates)
        Bot(table, hands, deadline, updates, unary, null).run()
    }
    channel.shutdownNow()
    channel.awaitTermination(5, TimeUnit.SECONDS)
    exitProcess(exitCode)
}
