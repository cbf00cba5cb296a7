// A small client of the engine's TableService, written against the generated Java lite classes
// (clients/android/src/gen/java) the way an Android app would use them: it watches one table
// over gRPC and, whenever it is its seat's turn, checks, calls or folds.
//
// It runs on a plain JVM too (scripts/build-android compiles it with Debian's kotlinc; the
// Android smoke test runs it against a real engine). The channel comes from
// ManagedChannelBuilder, so the transport is whichever one is on the classpath: grpc-okhttp in
// an Android app, grpc-netty on the JVM.
//
// Usage: TableBot HOST PORT TABLE_ID [HANDS] [DEADLINE_SECONDS]
//   with the player token in the environment variable STUD_TOKEN (never on the command line,
//   where other users of the machine could read it).
// It prints one line per thing it saw or did (SNAPSHOT, EVENT, ACT, REFUSED) and a final DONE,
// and exits 0 once the table started hand HANDS + 1 (or closed), 3 on its deadline, 2 on a bad
// command line, 1 when the stream failed.
package stud.example

import io.grpc.ManagedChannelBuilder
import io.grpc.Metadata
import io.grpc.Status
import io.grpc.StatusRuntimeException
import io.grpc.stub.MetadataUtils
import io.grpc.stub.StreamObserver
import stud.v1.ActRequest
import stud.v1.ActionKind
import stud.v1.LegalAction
import stud.v1.TableServiceGrpc
import stud.v1.TableSnapshot
import stud.v1.TableStatus
import stud.v1.WatchTableRequest
import stud.v1.WatchTableResponse
import java.util.UUID
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.system.exitProcess

/** What the stream hands the main thread: a message, its end, or its failure. */
private sealed class Update {
    class Message(val response: WatchTableResponse) : Update()
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

fun main(args: Array<String>) {
    if (args.size < 3) {
        System.err.println("usage: TableBot HOST PORT TABLE_ID [HANDS] [DEADLINE_SECONDS] (token in STUD_TOKEN)")
        exitProcess(2)
    }
    val token = System.getenv("STUD_TOKEN")
    if (token.isNullOrEmpty()) {
        System.err.println("TableBot: set STUD_TOKEN to the player token")
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
    val auth = MetadataUtils.newAttachHeadersInterceptor(headers)
    val watcher = TableServiceGrpc.newStub(channel).withInterceptors(auth)
    val actor = TableServiceGrpc.newBlockingStub(channel).withInterceptors(auth)

    // The stream's callbacks only queue; the main thread decides and calls Act, so a slow Act
    // never holds up the stream's reading.
    val updates = LinkedBlockingQueue<Update>()
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

    var messages = 0
    var actions = 0
    var lastSequence = -1L
    // The change of our last accepted action: older snapshots are stale, while that change's own
    // may already hand us the next turn (a new street can open on us).
    var actedThrough = -1L
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
            is Update.Message -> {
                val response = update.response
                messages += 1
                if (lastSequence >= 0 && response.sequence != lastSequence + 1) {
                    println("GAP previous=$lastSequence sequence=${response.sequence}")
                }
                lastSequence = response.sequence
                val snapshot = response.snapshot
                if (response.eventsCount > 0) {
                    val kinds = response.eventsList.joinToString(",") { it.kindCase.name }
                    println("EVENT sequence=${response.sequence} hand=${response.getEvents(0).handNumber} kinds=$kinds")
                } else {
                    println("SNAPSHOT sequence=${response.sequence} ${describe(snapshot)}")
                }
                if (snapshot.handNumber > hands || snapshot.status == TableStatus.TABLE_STATUS_CLOSED) {
                    break@loop
                }
                // Act only on the newest snapshot we hold: older ones queued behind it are stale.
                if (updates.isNotEmpty() || response.sequence < actedThrough) continue@loop
                if (snapshot.turnSeat == 0 || snapshot.turnSeat != snapshot.viewerSeat) continue@loop
                val action = choose(snapshot.legalActionsList) ?: continue@loop
                val request = ActRequest.newBuilder()
                    .setTable(table)
                    .setHandNumber(snapshot.handNumber)
                    .setKind(action.kind)
                    .setActionId(UUID.randomUUID().toString())
                if (action.minAmount < action.maxAmount) request.amount = action.minAmount
                try {
                    val answer = actor.withDeadlineAfter(10, TimeUnit.SECONDS).act(request.build())
                    actions += 1
                    actedThrough = answer.sequence
                    println(
                        "ACT hand=${snapshot.handNumber} seat=${answer.action.seat} " +
                            "kind=${answer.action.kind.name} amount=${answer.action.amount} " +
                            "sequence=${answer.sequence} action_id=${answer.action.actionId}"
                    )
                } catch (error: StatusRuntimeException) {
                    // The turn may have moved on (the clock acted): the table refuses, nothing
                    // changes, and the next snapshot tells what to do.
                    println("REFUSED hand=${snapshot.handNumber} kind=${action.kind.name} code=${error.status.code}")
                }
            }
        }
    }
    println("DONE messages=$messages actions=$actions last_sequence=$lastSequence")
    System.out.flush()
    channel.shutdownNow()
    channel.awaitTermination(5, TimeUnit.SECONDS)
    exitProcess(exitCode)
}
