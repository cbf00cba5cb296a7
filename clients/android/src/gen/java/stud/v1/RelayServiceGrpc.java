package stud.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * RelayService is what a gateway (`stud gateway`) calls on an engine node to carry many
 * players' TableService streams (Play, WatchTable) over one call.
 * Why: an open gRPC stream costs the server about 25-36 KiB of grpc's own per-call state
 * whatever the engine does (BENCHMARKS.md, "What grpc's 24 KiB a stream is"); a busy table has
 * seven. A gateway ends the players' streams in a process of its own and follows each engine
 * node over one Relay call: the engine then keeps per player stream only its seat's mailbox
 * and a few fields, not a gRPC call. Players call the gateway exactly as they call an engine
 * (TableService, same metadata, same messages, same errors).
 * Authentication: the Relay call carries `authorization: Bearer &lt;token&gt;` with a token of scope
 * `gateway`, minted with the engine's token secret (STUD_JWT_SECRET) as the lobby's and the
 * admin's are. No token: UNAUTHENTICATED / TOKEN_MISSING (TOKEN_INVALID, TOKEN_EXPIRED as
 * anywhere); a token without the scope (a player's, the lobby's): PERMISSION_DENIED /
 * GATEWAY_REQUIRED. The gateway's token only opens the relay: each channel is opened with
 * the player's own `authorization` value and checked exactly as his own Play or WatchTable
 * would be (same scopes, same refusals, same expiry rules for acts).
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: stud/v1/relay_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class RelayServiceGrpc {

  private RelayServiceGrpc() {}

  public static final String SERVICE_NAME = "stud.v1.RelayService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<stud.v1.RelayRequest,
      stud.v1.RelayResponse> getRelayMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Relay",
      requestType = stud.v1.RelayRequest.class,
      responseType = stud.v1.RelayResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
  public static io.grpc.MethodDescriptor<stud.v1.RelayRequest,
      stud.v1.RelayResponse> getRelayMethod() {
    io.grpc.MethodDescriptor<stud.v1.RelayRequest, stud.v1.RelayResponse> getRelayMethod;
    if ((getRelayMethod = RelayServiceGrpc.getRelayMethod) == null) {
      synchronized (RelayServiceGrpc.class) {
        if ((getRelayMethod = RelayServiceGrpc.getRelayMethod) == null) {
          RelayServiceGrpc.getRelayMethod = getRelayMethod =
              io.grpc.MethodDescriptor.<stud.v1.RelayRequest, stud.v1.RelayResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Relay"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.RelayRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.RelayResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getRelayMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static RelayServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RelayServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RelayServiceStub>() {
        @java.lang.Override
        public RelayServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RelayServiceStub(channel, callOptions);
        }
      };
    return RelayServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static RelayServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RelayServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RelayServiceBlockingStub>() {
        @java.lang.Override
        public RelayServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RelayServiceBlockingStub(channel, callOptions);
        }
      };
    return RelayServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static RelayServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RelayServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RelayServiceFutureStub>() {
        @java.lang.Override
        public RelayServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RelayServiceFutureStub(channel, callOptions);
        }
      };
    return RelayServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * RelayService is what a gateway (`stud gateway`) calls on an engine node to carry many
   * players' TableService streams (Play, WatchTable) over one call.
   * Why: an open gRPC stream costs the server about 25-36 KiB of grpc's own per-call state
   * whatever the engine does (BENCHMARKS.md, "What grpc's 24 KiB a stream is"); a busy table has
   * seven. A gateway ends the players' streams in a process of its own and follows each engine
   * node over one Relay call: the engine then keeps per player stream only its seat's mailbox
   * and a few fields, not a gRPC call. Players call the gateway exactly as they call an engine
   * (TableService, same metadata, same messages, same errors).
   * Authentication: the Relay call carries `authorization: Bearer &lt;token&gt;` with a token of scope
   * `gateway`, minted with the engine's token secret (STUD_JWT_SECRET) as the lobby's and the
   * admin's are. No token: UNAUTHENTICATED / TOKEN_MISSING (TOKEN_INVALID, TOKEN_EXPIRED as
   * anywhere); a token without the scope (a player's, the lobby's): PERMISSION_DENIED /
   * GATEWAY_REQUIRED. The gateway's token only opens the relay: each channel is opened with
   * the player's own `authorization` value and checked exactly as his own Play or WatchTable
   * would be (same scopes, same refusals, same expiry rules for acts).
   * </pre>
   */
  public static abstract class RelayServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * One bidirectional call per gateway per engine node, carrying any number of "channels":
     * each channel is one player's Play or WatchTable stream, named by an id the gateway
     * chooses.
     * - Opening: `open` names the channel, carries the player's `authorization` metadata value
     *   as he sent it ("Bearer &lt;token&gt;") and his stream's first request: `play` (a Play
     *   stream; its first request must be `watch`) or `watch_table` (a WatchTable stream).
     *   From then on the channel receives exactly the messages that stream would: `update`
     *   (PlayResponse: for a WatchTable channel only its `update`), in order, each a
     *   RelayMessage (the engine sends the messages it has ready together, in one
     *   RelayResponse).
     * - Acts: `request` carries a Play channel's later requests (`act`), taken in the order
     *   sent, one at a time per channel, with Play's meaning, checks, idempotency and answers
     *   (the act's update, or an `act` PlayResponse). Channels do not wait for each other's
     *   acts.
     * - Ending: a channel ends with `end`, whose code, message and details are exactly the
     *   status the player's own stream would have ended with (code 0: it ended cleanly, e.g.
     *   the table closed). Every ending of Play and WatchTable applies per channel: refused at
     *   open (bad token, NOT_SEATED, TABLE_NOT_FOUND, ...), WATCH_REPLACED, SLOW_CONSUMER,
     *   TABLE_MOVED (metadata naming the node that owns the table now), INVALID_ARGUMENT for a
     *   Play channel whose first request is not `watch` or a later one not `act`,
     *   MESSAGE_TOO_LARGE for a request over the engine's limit. After `end` the engine sends
     *   nothing more on that channel and forgets its id.
     * - Closing: `close` is the player's stream going away (he cancelled, or his connection
     *   dropped): the channel ends at once, no `end` is sent, and if it was his seat's last
     *   stream the seat becomes away, as when his own stream drops. Messages already in flight
     *   for the channel may still arrive; the gateway drops them.
     * - Channel ids: unique among the call's open channels; an id may be used again once the
     *   channel ended (after its `end`, or after `close`). `open` with an id in use, `request`
     *   or `close` of a channel that is not open are ignored when the channel just ended (the
     *   two sides crossed), else `open` of an id in use ends the whole call with
     *   INVALID_ARGUMENT (field "open.channel_id").
     * - Privacy: a channel only ever receives what the player's own stream would: his seat's
     *   view (his own down cards, nobody else's), or a railbird's public view. Channels of one
     *   call never share a message.
     * - Flow control: the engine sends each channel's messages in order and the channels'
     *   messages interleaved; one writer per call sends them as the gateway reads. A channel
     *   whose messages wait for the gateway longer than its stream's backlog allows ends with
     *   RESOURCE_EXHAUSTED / SLOW_CONSUMER, as a slow player's stream would; the other channels
     *   are not held back by it beyond the call's own flow control. The gateway keeps a bounded
     *   queue per player and, when a player reads too slowly, ends his stream with
     *   SLOW_CONSUMER and sends `close`: a slow player never slows the relay.
     * - The whole call ends when either side ends it: the gateway went away or cancelled, the
     *   engine is stopping, or a protocol error (INVALID_ARGUMENT, MESSAGE_TOO_LARGE for a
     *   relay request over twice the engine's request limit). Every channel ends with it, on
     *   the engine as if each player's stream had dropped (seats away); the gateway ends each
     *   player's stream with UNAVAILABLE / RELAY_LOST and players reconnect, as after an engine
     *   restart.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<stud.v1.RelayRequest> relay(
        io.grpc.stub.StreamObserver<stud.v1.RelayResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getRelayMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getRelayMethod(),
            io.grpc.stub.ServerCalls.asyncBidiStreamingCall(
              new MethodHandlers<
                stud.v1.RelayRequest,
                stud.v1.RelayResponse>(
                  this, METHODID_RELAY)))
          .build();
    }
  }

  /**
   * <pre>
   * RelayService is what a gateway (`stud gateway`) calls on an engine node to carry many
   * players' TableService streams (Play, WatchTable) over one call.
   * Why: an open gRPC stream costs the server about 25-36 KiB of grpc's own per-call state
   * whatever the engine does (BENCHMARKS.md, "What grpc's 24 KiB a stream is"); a busy table has
   * seven. A gateway ends the players' streams in a process of its own and follows each engine
   * node over one Relay call: the engine then keeps per player stream only its seat's mailbox
   * and a few fields, not a gRPC call. Players call the gateway exactly as they call an engine
   * (TableService, same metadata, same messages, same errors).
   * Authentication: the Relay call carries `authorization: Bearer &lt;token&gt;` with a token of scope
   * `gateway`, minted with the engine's token secret (STUD_JWT_SECRET) as the lobby's and the
   * admin's are. No token: UNAUTHENTICATED / TOKEN_MISSING (TOKEN_INVALID, TOKEN_EXPIRED as
   * anywhere); a token without the scope (a player's, the lobby's): PERMISSION_DENIED /
   * GATEWAY_REQUIRED. The gateway's token only opens the relay: each channel is opened with
   * the player's own `authorization` value and checked exactly as his own Play or WatchTable
   * would be (same scopes, same refusals, same expiry rules for acts).
   * </pre>
   */
  public static final class RelayServiceStub extends io.grpc.stub.AbstractAsyncStub<RelayServiceStub> {
    private RelayServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RelayServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RelayServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * One bidirectional call per gateway per engine node, carrying any number of "channels":
     * each channel is one player's Play or WatchTable stream, named by an id the gateway
     * chooses.
     * - Opening: `open` names the channel, carries the player's `authorization` metadata value
     *   as he sent it ("Bearer &lt;token&gt;") and his stream's first request: `play` (a Play
     *   stream; its first request must be `watch`) or `watch_table` (a WatchTable stream).
     *   From then on the channel receives exactly the messages that stream would: `update`
     *   (PlayResponse: for a WatchTable channel only its `update`), in order, each a
     *   RelayMessage (the engine sends the messages it has ready together, in one
     *   RelayResponse).
     * - Acts: `request` carries a Play channel's later requests (`act`), taken in the order
     *   sent, one at a time per channel, with Play's meaning, checks, idempotency and answers
     *   (the act's update, or an `act` PlayResponse). Channels do not wait for each other's
     *   acts.
     * - Ending: a channel ends with `end`, whose code, message and details are exactly the
     *   status the player's own stream would have ended with (code 0: it ended cleanly, e.g.
     *   the table closed). Every ending of Play and WatchTable applies per channel: refused at
     *   open (bad token, NOT_SEATED, TABLE_NOT_FOUND, ...), WATCH_REPLACED, SLOW_CONSUMER,
     *   TABLE_MOVED (metadata naming the node that owns the table now), INVALID_ARGUMENT for a
     *   Play channel whose first request is not `watch` or a later one not `act`,
     *   MESSAGE_TOO_LARGE for a request over the engine's limit. After `end` the engine sends
     *   nothing more on that channel and forgets its id.
     * - Closing: `close` is the player's stream going away (he cancelled, or his connection
     *   dropped): the channel ends at once, no `end` is sent, and if it was his seat's last
     *   stream the seat becomes away, as when his own stream drops. Messages already in flight
     *   for the channel may still arrive; the gateway drops them.
     * - Channel ids: unique among the call's open channels; an id may be used again once the
     *   channel ended (after its `end`, or after `close`). `open` with an id in use, `request`
     *   or `close` of a channel that is not open are ignored when the channel just ended (the
     *   two sides crossed), else `open` of an id in use ends the whole call with
     *   INVALID_ARGUMENT (field "open.channel_id").
     * - Privacy: a channel only ever receives what the player's own stream would: his seat's
     *   view (his own down cards, nobody else's), or a railbird's public view. Channels of one
     *   call never share a message.
     * - Flow control: the engine sends each channel's messages in order and the channels'
     *   messages interleaved; one writer per call sends them as the gateway reads. A channel
     *   whose messages wait for the gateway longer than its stream's backlog allows ends with
     *   RESOURCE_EXHAUSTED / SLOW_CONSUMER, as a slow player's stream would; the other channels
     *   are not held back by it beyond the call's own flow control. The gateway keeps a bounded
     *   queue per player and, when a player reads too slowly, ends his stream with
     *   SLOW_CONSUMER and sends `close`: a slow player never slows the relay.
     * - The whole call ends when either side ends it: the gateway went away or cancelled, the
     *   engine is stopping, or a protocol error (INVALID_ARGUMENT, MESSAGE_TOO_LARGE for a
     *   relay request over twice the engine's request limit). Every channel ends with it, on
     *   the engine as if each player's stream had dropped (seats away); the gateway ends each
     *   player's stream with UNAVAILABLE / RELAY_LOST and players reconnect, as after an engine
     *   restart.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<stud.v1.RelayRequest> relay(
        io.grpc.stub.StreamObserver<stud.v1.RelayResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
          getChannel().newCall(getRelayMethod(), getCallOptions()), responseObserver);
    }
  }

  /**
   * <pre>
   * RelayService is what a gateway (`stud gateway`) calls on an engine node to carry many
   * players' TableService streams (Play, WatchTable) over one call.
   * Why: an open gRPC stream costs the server about 25-36 KiB of grpc's own per-call state
   * whatever the engine does (BENCHMARKS.md, "What grpc's 24 KiB a stream is"); a busy table has
   * seven. A gateway ends the players' streams in a process of its own and follows each engine
   * node over one Relay call: the engine then keeps per player stream only its seat's mailbox
   * and a few fields, not a gRPC call. Players call the gateway exactly as they call an engine
   * (TableService, same metadata, same messages, same errors).
   * Authentication: the Relay call carries `authorization: Bearer &lt;token&gt;` with a token of scope
   * `gateway`, minted with the engine's token secret (STUD_JWT_SECRET) as the lobby's and the
   * admin's are. No token: UNAUTHENTICATED / TOKEN_MISSING (TOKEN_INVALID, TOKEN_EXPIRED as
   * anywhere); a token without the scope (a player's, the lobby's): PERMISSION_DENIED /
   * GATEWAY_REQUIRED. The gateway's token only opens the relay: each channel is opened with
   * the player's own `authorization` value and checked exactly as his own Play or WatchTable
   * would be (same scopes, same refusals, same expiry rules for acts).
   * </pre>
   */
  public static final class RelayServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<RelayServiceBlockingStub> {
    private RelayServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RelayServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RelayServiceBlockingStub(channel, callOptions);
    }
  }

  /**
   * <pre>
   * RelayService is what a gateway (`stud gateway`) calls on an engine node to carry many
   * players' TableService streams (Play, WatchTable) over one call.
   * Why: an open gRPC stream costs the server about 25-36 KiB of grpc's own per-call state
   * whatever the engine does (BENCHMARKS.md, "What grpc's 24 KiB a stream is"); a busy table has
   * seven. A gateway ends the players' streams in a process of its own and follows each engine
   * node over one Relay call: the engine then keeps per player stream only its seat's mailbox
   * and a few fields, not a gRPC call. Players call the gateway exactly as they call an engine
   * (TableService, same metadata, same messages, same errors).
   * Authentication: the Relay call carries `authorization: Bearer &lt;token&gt;` with a token of scope
   * `gateway`, minted with the engine's token secret (STUD_JWT_SECRET) as the lobby's and the
   * admin's are. No token: UNAUTHENTICATED / TOKEN_MISSING (TOKEN_INVALID, TOKEN_EXPIRED as
   * anywhere); a token without the scope (a player's, the lobby's): PERMISSION_DENIED /
   * GATEWAY_REQUIRED. The gateway's token only opens the relay: each channel is opened with
   * the player's own `authorization` value and checked exactly as his own Play or WatchTable
   * would be (same scopes, same refusals, same expiry rules for acts).
   * </pre>
   */
  public static final class RelayServiceFutureStub extends io.grpc.stub.AbstractFutureStub<RelayServiceFutureStub> {
    private RelayServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RelayServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RelayServiceFutureStub(channel, callOptions);
    }
  }

  private static final int METHODID_RELAY = 0;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final RelayServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(RelayServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_RELAY:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.relay(
              (io.grpc.stub.StreamObserver<stud.v1.RelayResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (RelayServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .addMethod(getRelayMethod())
              .build();
        }
      }
    }
    return result;
  }
}
