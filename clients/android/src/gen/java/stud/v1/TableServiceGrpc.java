package stud.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * TableService is what players' clients (web, mobile, bots) call to play at a table.
 * Transport: gRPC for native clients; gRPC-Web and Connect for browsers, which use the unary
 * and server-streaming methods (WatchTable with Act). Play, the one bidirectional method, is for
 * native clients: gRPC, or Connect from a client that streams its request body while it reads
 * the response (a browser's fetch cannot).
 * Authentication: every call carries `authorization: Bearer &lt;token&gt;` with the player token the
 * lobby issued; the token names the player, and the player's seat at the table is found from
 * it. A player acts only for his own seat.
 * Token lifetime: the lobby's access tokens are short-lived (15 minutes by default) and the
 * client renews them with its refresh token (the lobby's POST /auth/refresh). The engine checks
 * a token when a call starts, locally (signature and expiry, no database):
 * - A unary call (Act, Leave, SitOut, SitIn, ShowCards) needs a token valid when it is made;
 *   an expired one fails with UNAUTHENTICATED / TOKEN_EXPIRED, and the same call with a fresh
 *   token succeeds (Act's idempotency by action_id makes the retry safe).
 * - A stream (WatchTable, Play) needs a valid token to open. Once open it lives on past its
 *   token's expiry: it only carries the seat's own view. Acts do not: a Play stream refuses the
 *   acts sent after its token expired with an `act` response `refused` UNAUTHENTICATED /
 *   TOKEN_EXPIRED, and the stream goes on. To present a fresh token the client opens a new
 *   Play (or WatchTable) with it, which replaces the old stream (WATCH_REPLACED) without
 *   touching the seat, or sends its acts through Act.
 * - Revoking a session (log-out, a password change) stops its refresh token at once; its last
 *   access token is accepted until it expires, since the engine does not ask the lobby.
 * Errors: google.rpc.Status with one google.rpc.ErrorInfo, domain "stud.v1"; reasons in
 * stud.v1.ErrorReason (errors.proto). Every RPC may fail with TOKEN_MISSING / TOKEN_INVALID /
 * TOKEN_EXPIRED (UNAUTHENTICATED), TABLE_NOT_FOUND (NOT_FOUND), TABLE_CLOSED (FAILED_PRECONDITION: the table
 * has closed, before or since an engine restart), NOT_SEATED (PERMISSION_DENIED),
 * INVALID_ARGUMENT for a malformed table name and MESSAGE_TOO_LARGE (RESOURCE_EXHAUSTED).
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: stud/v1/table_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class TableServiceGrpc {

  private TableServiceGrpc() {}

  public static final String SERVICE_NAME = "stud.v1.TableService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<stud.v1.WatchTableRequest,
      stud.v1.WatchTableResponse> getWatchTableMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WatchTable",
      requestType = stud.v1.WatchTableRequest.class,
      responseType = stud.v1.WatchTableResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<stud.v1.WatchTableRequest,
      stud.v1.WatchTableResponse> getWatchTableMethod() {
    io.grpc.MethodDescriptor<stud.v1.WatchTableRequest, stud.v1.WatchTableResponse> getWatchTableMethod;
    if ((getWatchTableMethod = TableServiceGrpc.getWatchTableMethod) == null) {
      synchronized (TableServiceGrpc.class) {
        if ((getWatchTableMethod = TableServiceGrpc.getWatchTableMethod) == null) {
          TableServiceGrpc.getWatchTableMethod = getWatchTableMethod =
              io.grpc.MethodDescriptor.<stud.v1.WatchTableRequest, stud.v1.WatchTableResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WatchTable"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.WatchTableRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.WatchTableResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getWatchTableMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.ActRequest,
      stud.v1.ActResponse> getActMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Act",
      requestType = stud.v1.ActRequest.class,
      responseType = stud.v1.ActResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.ActRequest,
      stud.v1.ActResponse> getActMethod() {
    io.grpc.MethodDescriptor<stud.v1.ActRequest, stud.v1.ActResponse> getActMethod;
    if ((getActMethod = TableServiceGrpc.getActMethod) == null) {
      synchronized (TableServiceGrpc.class) {
        if ((getActMethod = TableServiceGrpc.getActMethod) == null) {
          TableServiceGrpc.getActMethod = getActMethod =
              io.grpc.MethodDescriptor.<stud.v1.ActRequest, stud.v1.ActResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Act"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ActRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ActResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getActMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.PlayRequest,
      stud.v1.PlayResponse> getPlayMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Play",
      requestType = stud.v1.PlayRequest.class,
      responseType = stud.v1.PlayResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
  public static io.grpc.MethodDescriptor<stud.v1.PlayRequest,
      stud.v1.PlayResponse> getPlayMethod() {
    io.grpc.MethodDescriptor<stud.v1.PlayRequest, stud.v1.PlayResponse> getPlayMethod;
    if ((getPlayMethod = TableServiceGrpc.getPlayMethod) == null) {
      synchronized (TableServiceGrpc.class) {
        if ((getPlayMethod = TableServiceGrpc.getPlayMethod) == null) {
          TableServiceGrpc.getPlayMethod = getPlayMethod =
              io.grpc.MethodDescriptor.<stud.v1.PlayRequest, stud.v1.PlayResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Play"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.PlayRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.PlayResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getPlayMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.LeaveRequest,
      stud.v1.LeaveResponse> getLeaveMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Leave",
      requestType = stud.v1.LeaveRequest.class,
      responseType = stud.v1.LeaveResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.LeaveRequest,
      stud.v1.LeaveResponse> getLeaveMethod() {
    io.grpc.MethodDescriptor<stud.v1.LeaveRequest, stud.v1.LeaveResponse> getLeaveMethod;
    if ((getLeaveMethod = TableServiceGrpc.getLeaveMethod) == null) {
      synchronized (TableServiceGrpc.class) {
        if ((getLeaveMethod = TableServiceGrpc.getLeaveMethod) == null) {
          TableServiceGrpc.getLeaveMethod = getLeaveMethod =
              io.grpc.MethodDescriptor.<stud.v1.LeaveRequest, stud.v1.LeaveResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Leave"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.LeaveRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.LeaveResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getLeaveMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.SitOutRequest,
      stud.v1.SitOutResponse> getSitOutMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SitOut",
      requestType = stud.v1.SitOutRequest.class,
      responseType = stud.v1.SitOutResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.SitOutRequest,
      stud.v1.SitOutResponse> getSitOutMethod() {
    io.grpc.MethodDescriptor<stud.v1.SitOutRequest, stud.v1.SitOutResponse> getSitOutMethod;
    if ((getSitOutMethod = TableServiceGrpc.getSitOutMethod) == null) {
      synchronized (TableServiceGrpc.class) {
        if ((getSitOutMethod = TableServiceGrpc.getSitOutMethod) == null) {
          TableServiceGrpc.getSitOutMethod = getSitOutMethod =
              io.grpc.MethodDescriptor.<stud.v1.SitOutRequest, stud.v1.SitOutResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SitOut"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SitOutRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SitOutResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getSitOutMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.SitInRequest,
      stud.v1.SitInResponse> getSitInMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SitIn",
      requestType = stud.v1.SitInRequest.class,
      responseType = stud.v1.SitInResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.SitInRequest,
      stud.v1.SitInResponse> getSitInMethod() {
    io.grpc.MethodDescriptor<stud.v1.SitInRequest, stud.v1.SitInResponse> getSitInMethod;
    if ((getSitInMethod = TableServiceGrpc.getSitInMethod) == null) {
      synchronized (TableServiceGrpc.class) {
        if ((getSitInMethod = TableServiceGrpc.getSitInMethod) == null) {
          TableServiceGrpc.getSitInMethod = getSitInMethod =
              io.grpc.MethodDescriptor.<stud.v1.SitInRequest, stud.v1.SitInResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SitIn"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SitInRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SitInResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getSitInMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.ShowCardsRequest,
      stud.v1.ShowCardsResponse> getShowCardsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ShowCards",
      requestType = stud.v1.ShowCardsRequest.class,
      responseType = stud.v1.ShowCardsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.ShowCardsRequest,
      stud.v1.ShowCardsResponse> getShowCardsMethod() {
    io.grpc.MethodDescriptor<stud.v1.ShowCardsRequest, stud.v1.ShowCardsResponse> getShowCardsMethod;
    if ((getShowCardsMethod = TableServiceGrpc.getShowCardsMethod) == null) {
      synchronized (TableServiceGrpc.class) {
        if ((getShowCardsMethod = TableServiceGrpc.getShowCardsMethod) == null) {
          TableServiceGrpc.getShowCardsMethod = getShowCardsMethod =
              io.grpc.MethodDescriptor.<stud.v1.ShowCardsRequest, stud.v1.ShowCardsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ShowCards"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ShowCardsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ShowCardsResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getShowCardsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static TableServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TableServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TableServiceStub>() {
        @java.lang.Override
        public TableServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TableServiceStub(channel, callOptions);
        }
      };
    return TableServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static TableServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TableServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TableServiceBlockingStub>() {
        @java.lang.Override
        public TableServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TableServiceBlockingStub(channel, callOptions);
        }
      };
    return TableServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static TableServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TableServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TableServiceFutureStub>() {
        @java.lang.Override
        public TableServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TableServiceFutureStub(channel, callOptions);
        }
      };
    return TableServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * TableService is what players' clients (web, mobile, bots) call to play at a table.
   * Transport: gRPC for native clients; gRPC-Web and Connect for browsers, which use the unary
   * and server-streaming methods (WatchTable with Act). Play, the one bidirectional method, is for
   * native clients: gRPC, or Connect from a client that streams its request body while it reads
   * the response (a browser's fetch cannot).
   * Authentication: every call carries `authorization: Bearer &lt;token&gt;` with the player token the
   * lobby issued; the token names the player, and the player's seat at the table is found from
   * it. A player acts only for his own seat.
   * Token lifetime: the lobby's access tokens are short-lived (15 minutes by default) and the
   * client renews them with its refresh token (the lobby's POST /auth/refresh). The engine checks
   * a token when a call starts, locally (signature and expiry, no database):
   * - A unary call (Act, Leave, SitOut, SitIn, ShowCards) needs a token valid when it is made;
   *   an expired one fails with UNAUTHENTICATED / TOKEN_EXPIRED, and the same call with a fresh
   *   token succeeds (Act's idempotency by action_id makes the retry safe).
   * - A stream (WatchTable, Play) needs a valid token to open. Once open it lives on past its
   *   token's expiry: it only carries the seat's own view. Acts do not: a Play stream refuses the
   *   acts sent after its token expired with an `act` response `refused` UNAUTHENTICATED /
   *   TOKEN_EXPIRED, and the stream goes on. To present a fresh token the client opens a new
   *   Play (or WatchTable) with it, which replaces the old stream (WATCH_REPLACED) without
   *   touching the seat, or sends its acts through Act.
   * - Revoking a session (log-out, a password change) stops its refresh token at once; its last
   *   access token is accepted until it expires, since the engine does not ask the lobby.
   * Errors: google.rpc.Status with one google.rpc.ErrorInfo, domain "stud.v1"; reasons in
   * stud.v1.ErrorReason (errors.proto). Every RPC may fail with TOKEN_MISSING / TOKEN_INVALID /
   * TOKEN_EXPIRED (UNAUTHENTICATED), TABLE_NOT_FOUND (NOT_FOUND), TABLE_CLOSED (FAILED_PRECONDITION: the table
   * has closed, before or since an engine restart), NOT_SEATED (PERMISSION_DENIED),
   * INVALID_ARGUMENT for a malformed table name and MESSAGE_TOO_LARGE (RESOURCE_EXHAUSTED).
   * </pre>
   */
  public static abstract class TableServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Streams the caller's seat view of the table: first a message with the full snapshot, then
     * one message per change, each with the change's events and the new snapshot.
     * - Railbirds: a signed-in player without a seat may watch a public table or a tournament
     *   table (not a private quick-game table: NOT_SEATED). He gets the public view only
     *   (viewer_seat 0): no down card of anyone, ever, not even after a fold or a hand not
     *   shown, and no legal actions. TableSnapshot.watchers counts railbirds. A player seated
     *   later at the table watches again to get his seat's view.
     * - Tournament tables: a player who busts keeps his stream as a railbird's (it still gets
     *   his TournamentPlaced); a player moved gets PlayerMoved (where he goes), then his stream
     *   ends cleanly.
     * - A change is everything one cause brings about at once: an action with the cards and
     *   the turn that follow it, a hand's start with its antes, cards and first turn, a
     *   player sitting down. Its message carries all of its events in order (`events`) and the
     *   view after the last of them.
     * - `sequence` numbers the table's changes; within one stream each message's sequence is one
     *   more than the previous one's. There is no resume: after a drop, call WatchTable again
     *   and start over from the fresh snapshot it sends first.
     * - A new WatchTable for the same seat replaces the old one: the old stream ends with
     *   ABORTED / WATCH_REPLACED.
     * - While a seat has an open stream it is `connected`; when the last stream closes it is
     *   away (it stays in its hand; its clock acts for it).
     * - A client that reads too slowly is cut off with RESOURCE_EXHAUSTED / SLOW_CONSUMER; when
     *   the table moves to another node the stream ends with UNAVAILABLE / TABLE_MOVED.
     * - When the table closes, the stream sends the TableStatusChanged(CLOSED) update and ends
     *   with OK.
     * - The token is checked when the stream opens; the stream outlives the token's expiry (see
     *   "Token lifetime" above). Reopen it with a fresh token whenever convenient.
     * </pre>
     */
    public void watchTable(stud.v1.WatchTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.WatchTableResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchTableMethod(), responseObserver);
    }

    /**
     * <pre>
     * Takes one action for the caller's seat in the running hand.
     * Idempotent by `action_id`: repeating a request with an action id the table has accepted
     * returns the first answer again and changes nothing. A refused action is not remembered:
     * its action id may be used again.
     * Errors (FAILED_PRECONDITION): NOT_YOUR_TURN, STALE_HAND (hand_number is not the running
     * hand), ILLEGAL_ACTION (kind not legal now, or amount not a legal size), NO_HAND_IN_PROGRESS;
     * (INVALID_ARGUMENT): AMOUNT_INVALID, IDEMPOTENCY_KEY_REUSED (same action_id, different
     * request).
     * </pre>
     */
    public void act(stud.v1.ActRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ActResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getActMethod(), responseObserver);
    }

    /**
     * <pre>
     * Plays at a table over one stream: the caller's seat view as WatchTable streams it, and his
     * actions as Act takes them, without a call per action. For native clients (see Transport
     * above); it does exactly what WatchTable and Act do, and they can be mixed.
     * - The first request is `watch` (which table). It opens the seat's view: the stream sends
     *   `update` messages exactly as WatchTable's messages (first the full snapshot, then one
     *   per change), and a new Play or WatchTable for the same seat replaces it the same way.
     * - Each later request is `act`, taken in the order sent, one at a time, with Act's
     *   meaning, checks and idempotency by `action_id`; its `table` may be left empty (the
     *   watched table).
     * - An accepted act is answered by its change: the `update` whose `action_id` is the act's
     *   (its action is the first of that update's events). An `act` response answers the others:
     *   a refused act (`refused`, with the status and ErrorInfo reason Act would have failed
     *   with; the stream goes on), or an action id the table had already accepted (`accepted`,
     *   the first answer, as Act returns it).
     * - The stream's token is checked when it opens, and its expiry again at every act: after it
     *   expires the updates go on, but each act is answered `refused` UNAUTHENTICATED /
     *   TOKEN_EXPIRED (nothing is taken). Open a new Play with a fresh token (it replaces this
     *   one; the seat stays) before the token expires, or when such a refusal comes.
     * - The stream ends as WatchTable's does, and with INVALID_ARGUMENT when the first request is
     *   not `watch` or a later one is not `act` (ErrorInfo field "watch" or "act"),
     *   RESOURCE_EXHAUSTED / MESSAGE_TOO_LARGE for a request over the size limit. When the
     *   client closes its side, the updates go on until it cancels the call.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<stud.v1.PlayRequest> play(
        io.grpc.stub.StreamObserver<stud.v1.PlayResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getPlayMethod(), responseObserver);
    }

    /**
     * <pre>
     * Leaves the table. Between hands (or while not dealt into the running hand) the player is
     * paid out at once and the seat frees. During a hand he is in, he stays in until it ends
     * (status LEAVING; his clock acts for him if he is away), then he is paid out. Calling it
     * again while leaving is harmless. Refused at a tournament table (FAILED_PRECONDITION /
     * TOURNAMENT_TABLE): tournament chips are not cashed out.
     * </pre>
     */
    public void leave(stud.v1.LeaveRequest request,
        io.grpc.stub.StreamObserver<stud.v1.LeaveResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getLeaveMethod(), responseObserver);
    }

    /**
     * <pre>
     * Sits out from the next hand: the player keeps his seat and stack but is not dealt in. A
     * hand he is already in is played out. Calling it while sitting out is harmless. Refused at a
     * tournament table (FAILED_PRECONDITION / TOURNAMENT_TABLE): an away player is dealt in and
     * his clock acts for him.
     * </pre>
     */
    public void sitOut(stud.v1.SitOutRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SitOutResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSitOutMethod(), responseObserver);
    }

    /**
     * <pre>
     * Sits back in: dealt in from the next hand (if he has chips). Calling it while seated is
     * harmless.
     * </pre>
     */
    public void sitIn(stud.v1.SitInRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SitInResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSitInMethod(), responseObserver);
    }

    /**
     * <pre>
     * Shows the caller's cards after he won the last hand by folds, where the profile lets a
     * winner show (Rules.winner_may_show). Allowed until the next hand starts; everyone at the
     * table receives a CardsShown event (voluntary). Errors: SHOW_NOT_ALLOWED, STALE_HAND
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public void showCards(stud.v1.ShowCardsRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ShowCardsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getShowCardsMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getWatchTableMethod(),
            io.grpc.stub.ServerCalls.asyncServerStreamingCall(
              new MethodHandlers<
                stud.v1.WatchTableRequest,
                stud.v1.WatchTableResponse>(
                  this, METHODID_WATCH_TABLE)))
          .addMethod(
            getActMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.ActRequest,
                stud.v1.ActResponse>(
                  this, METHODID_ACT)))
          .addMethod(
            getPlayMethod(),
            io.grpc.stub.ServerCalls.asyncBidiStreamingCall(
              new MethodHandlers<
                stud.v1.PlayRequest,
                stud.v1.PlayResponse>(
                  this, METHODID_PLAY)))
          .addMethod(
            getLeaveMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.LeaveRequest,
                stud.v1.LeaveResponse>(
                  this, METHODID_LEAVE)))
          .addMethod(
            getSitOutMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.SitOutRequest,
                stud.v1.SitOutResponse>(
                  this, METHODID_SIT_OUT)))
          .addMethod(
            getSitInMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.SitInRequest,
                stud.v1.SitInResponse>(
                  this, METHODID_SIT_IN)))
          .addMethod(
            getShowCardsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.ShowCardsRequest,
                stud.v1.ShowCardsResponse>(
                  this, METHODID_SHOW_CARDS)))
          .build();
    }
  }

  /**
   * <pre>
   * TableService is what players' clients (web, mobile, bots) call to play at a table.
   * Transport: gRPC for native clients; gRPC-Web and Connect for browsers, which use the unary
   * and server-streaming methods (WatchTable with Act). Play, the one bidirectional method, is for
   * native clients: gRPC, or Connect from a client that streams its request body while it reads
   * the response (a browser's fetch cannot).
   * Authentication: every call carries `authorization: Bearer &lt;token&gt;` with the player token the
   * lobby issued; the token names the player, and the player's seat at the table is found from
   * it. A player acts only for his own seat.
   * Token lifetime: the lobby's access tokens are short-lived (15 minutes by default) and the
   * client renews them with its refresh token (the lobby's POST /auth/refresh). The engine checks
   * a token when a call starts, locally (signature and expiry, no database):
   * - A unary call (Act, Leave, SitOut, SitIn, ShowCards) needs a token valid when it is made;
   *   an expired one fails with UNAUTHENTICATED / TOKEN_EXPIRED, and the same call with a fresh
   *   token succeeds (Act's idempotency by action_id makes the retry safe).
   * - A stream (WatchTable, Play) needs a valid token to open. Once open it lives on past its
   *   token's expiry: it only carries the seat's own view. Acts do not: a Play stream refuses the
   *   acts sent after its token expired with an `act` response `refused` UNAUTHENTICATED /
   *   TOKEN_EXPIRED, and the stream goes on. To present a fresh token the client opens a new
   *   Play (or WatchTable) with it, which replaces the old stream (WATCH_REPLACED) without
   *   touching the seat, or sends its acts through Act.
   * - Revoking a session (log-out, a password change) stops its refresh token at once; its last
   *   access token is accepted until it expires, since the engine does not ask the lobby.
   * Errors: google.rpc.Status with one google.rpc.ErrorInfo, domain "stud.v1"; reasons in
   * stud.v1.ErrorReason (errors.proto). Every RPC may fail with TOKEN_MISSING / TOKEN_INVALID /
   * TOKEN_EXPIRED (UNAUTHENTICATED), TABLE_NOT_FOUND (NOT_FOUND), TABLE_CLOSED (FAILED_PRECONDITION: the table
   * has closed, before or since an engine restart), NOT_SEATED (PERMISSION_DENIED),
   * INVALID_ARGUMENT for a malformed table name and MESSAGE_TOO_LARGE (RESOURCE_EXHAUSTED).
   * </pre>
   */
  public static final class TableServiceStub extends io.grpc.stub.AbstractAsyncStub<TableServiceStub> {
    private TableServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TableServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TableServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Streams the caller's seat view of the table: first a message with the full snapshot, then
     * one message per change, each with the change's events and the new snapshot.
     * - Railbirds: a signed-in player without a seat may watch a public table or a tournament
     *   table (not a private quick-game table: NOT_SEATED). He gets the public view only
     *   (viewer_seat 0): no down card of anyone, ever, not even after a fold or a hand not
     *   shown, and no legal actions. TableSnapshot.watchers counts railbirds. A player seated
     *   later at the table watches again to get his seat's view.
     * - Tournament tables: a player who busts keeps his stream as a railbird's (it still gets
     *   his TournamentPlaced); a player moved gets PlayerMoved (where he goes), then his stream
     *   ends cleanly.
     * - A change is everything one cause brings about at once: an action with the cards and
     *   the turn that follow it, a hand's start with its antes, cards and first turn, a
     *   player sitting down. Its message carries all of its events in order (`events`) and the
     *   view after the last of them.
     * - `sequence` numbers the table's changes; within one stream each message's sequence is one
     *   more than the previous one's. There is no resume: after a drop, call WatchTable again
     *   and start over from the fresh snapshot it sends first.
     * - A new WatchTable for the same seat replaces the old one: the old stream ends with
     *   ABORTED / WATCH_REPLACED.
     * - While a seat has an open stream it is `connected`; when the last stream closes it is
     *   away (it stays in its hand; its clock acts for it).
     * - A client that reads too slowly is cut off with RESOURCE_EXHAUSTED / SLOW_CONSUMER; when
     *   the table moves to another node the stream ends with UNAVAILABLE / TABLE_MOVED.
     * - When the table closes, the stream sends the TableStatusChanged(CLOSED) update and ends
     *   with OK.
     * - The token is checked when the stream opens; the stream outlives the token's expiry (see
     *   "Token lifetime" above). Reopen it with a fresh token whenever convenient.
     * </pre>
     */
    public void watchTable(stud.v1.WatchTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.WatchTableResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchTableMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Takes one action for the caller's seat in the running hand.
     * Idempotent by `action_id`: repeating a request with an action id the table has accepted
     * returns the first answer again and changes nothing. A refused action is not remembered:
     * its action id may be used again.
     * Errors (FAILED_PRECONDITION): NOT_YOUR_TURN, STALE_HAND (hand_number is not the running
     * hand), ILLEGAL_ACTION (kind not legal now, or amount not a legal size), NO_HAND_IN_PROGRESS;
     * (INVALID_ARGUMENT): AMOUNT_INVALID, IDEMPOTENCY_KEY_REUSED (same action_id, different
     * request).
     * </pre>
     */
    public void act(stud.v1.ActRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ActResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getActMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Plays at a table over one stream: the caller's seat view as WatchTable streams it, and his
     * actions as Act takes them, without a call per action. For native clients (see Transport
     * above); it does exactly what WatchTable and Act do, and they can be mixed.
     * - The first request is `watch` (which table). It opens the seat's view: the stream sends
     *   `update` messages exactly as WatchTable's messages (first the full snapshot, then one
     *   per change), and a new Play or WatchTable for the same seat replaces it the same way.
     * - Each later request is `act`, taken in the order sent, one at a time, with Act's
     *   meaning, checks and idempotency by `action_id`; its `table` may be left empty (the
     *   watched table).
     * - An accepted act is answered by its change: the `update` whose `action_id` is the act's
     *   (its action is the first of that update's events). An `act` response answers the others:
     *   a refused act (`refused`, with the status and ErrorInfo reason Act would have failed
     *   with; the stream goes on), or an action id the table had already accepted (`accepted`,
     *   the first answer, as Act returns it).
     * - The stream's token is checked when it opens, and its expiry again at every act: after it
     *   expires the updates go on, but each act is answered `refused` UNAUTHENTICATED /
     *   TOKEN_EXPIRED (nothing is taken). Open a new Play with a fresh token (it replaces this
     *   one; the seat stays) before the token expires, or when such a refusal comes.
     * - The stream ends as WatchTable's does, and with INVALID_ARGUMENT when the first request is
     *   not `watch` or a later one is not `act` (ErrorInfo field "watch" or "act"),
     *   RESOURCE_EXHAUSTED / MESSAGE_TOO_LARGE for a request over the size limit. When the
     *   client closes its side, the updates go on until it cancels the call.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<stud.v1.PlayRequest> play(
        io.grpc.stub.StreamObserver<stud.v1.PlayResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
          getChannel().newCall(getPlayMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * Leaves the table. Between hands (or while not dealt into the running hand) the player is
     * paid out at once and the seat frees. During a hand he is in, he stays in until it ends
     * (status LEAVING; his clock acts for him if he is away), then he is paid out. Calling it
     * again while leaving is harmless. Refused at a tournament table (FAILED_PRECONDITION /
     * TOURNAMENT_TABLE): tournament chips are not cashed out.
     * </pre>
     */
    public void leave(stud.v1.LeaveRequest request,
        io.grpc.stub.StreamObserver<stud.v1.LeaveResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getLeaveMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Sits out from the next hand: the player keeps his seat and stack but is not dealt in. A
     * hand he is already in is played out. Calling it while sitting out is harmless. Refused at a
     * tournament table (FAILED_PRECONDITION / TOURNAMENT_TABLE): an away player is dealt in and
     * his clock acts for him.
     * </pre>
     */
    public void sitOut(stud.v1.SitOutRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SitOutResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSitOutMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Sits back in: dealt in from the next hand (if he has chips). Calling it while seated is
     * harmless.
     * </pre>
     */
    public void sitIn(stud.v1.SitInRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SitInResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSitInMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Shows the caller's cards after he won the last hand by folds, where the profile lets a
     * winner show (Rules.winner_may_show). Allowed until the next hand starts; everyone at the
     * table receives a CardsShown event (voluntary). Errors: SHOW_NOT_ALLOWED, STALE_HAND
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public void showCards(stud.v1.ShowCardsRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ShowCardsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getShowCardsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * TableService is what players' clients (web, mobile, bots) call to play at a table.
   * Transport: gRPC for native clients; gRPC-Web and Connect for browsers, which use the unary
   * and server-streaming methods (WatchTable with Act). Play, the one bidirectional method, is for
   * native clients: gRPC, or Connect from a client that streams its request body while it reads
   * the response (a browser's fetch cannot).
   * Authentication: every call carries `authorization: Bearer &lt;token&gt;` with the player token the
   * lobby issued; the token names the player, and the player's seat at the table is found from
   * it. A player acts only for his own seat.
   * Token lifetime: the lobby's access tokens are short-lived (15 minutes by default) and the
   * client renews them with its refresh token (the lobby's POST /auth/refresh). The engine checks
   * a token when a call starts, locally (signature and expiry, no database):
   * - A unary call (Act, Leave, SitOut, SitIn, ShowCards) needs a token valid when it is made;
   *   an expired one fails with UNAUTHENTICATED / TOKEN_EXPIRED, and the same call with a fresh
   *   token succeeds (Act's idempotency by action_id makes the retry safe).
   * - A stream (WatchTable, Play) needs a valid token to open. Once open it lives on past its
   *   token's expiry: it only carries the seat's own view. Acts do not: a Play stream refuses the
   *   acts sent after its token expired with an `act` response `refused` UNAUTHENTICATED /
   *   TOKEN_EXPIRED, and the stream goes on. To present a fresh token the client opens a new
   *   Play (or WatchTable) with it, which replaces the old stream (WATCH_REPLACED) without
   *   touching the seat, or sends its acts through Act.
   * - Revoking a session (log-out, a password change) stops its refresh token at once; its last
   *   access token is accepted until it expires, since the engine does not ask the lobby.
   * Errors: google.rpc.Status with one google.rpc.ErrorInfo, domain "stud.v1"; reasons in
   * stud.v1.ErrorReason (errors.proto). Every RPC may fail with TOKEN_MISSING / TOKEN_INVALID /
   * TOKEN_EXPIRED (UNAUTHENTICATED), TABLE_NOT_FOUND (NOT_FOUND), TABLE_CLOSED (FAILED_PRECONDITION: the table
   * has closed, before or since an engine restart), NOT_SEATED (PERMISSION_DENIED),
   * INVALID_ARGUMENT for a malformed table name and MESSAGE_TOO_LARGE (RESOURCE_EXHAUSTED).
   * </pre>
   */
  public static final class TableServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<TableServiceBlockingStub> {
    private TableServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TableServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TableServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Streams the caller's seat view of the table: first a message with the full snapshot, then
     * one message per change, each with the change's events and the new snapshot.
     * - Railbirds: a signed-in player without a seat may watch a public table or a tournament
     *   table (not a private quick-game table: NOT_SEATED). He gets the public view only
     *   (viewer_seat 0): no down card of anyone, ever, not even after a fold or a hand not
     *   shown, and no legal actions. TableSnapshot.watchers counts railbirds. A player seated
     *   later at the table watches again to get his seat's view.
     * - Tournament tables: a player who busts keeps his stream as a railbird's (it still gets
     *   his TournamentPlaced); a player moved gets PlayerMoved (where he goes), then his stream
     *   ends cleanly.
     * - A change is everything one cause brings about at once: an action with the cards and
     *   the turn that follow it, a hand's start with its antes, cards and first turn, a
     *   player sitting down. Its message carries all of its events in order (`events`) and the
     *   view after the last of them.
     * - `sequence` numbers the table's changes; within one stream each message's sequence is one
     *   more than the previous one's. There is no resume: after a drop, call WatchTable again
     *   and start over from the fresh snapshot it sends first.
     * - A new WatchTable for the same seat replaces the old one: the old stream ends with
     *   ABORTED / WATCH_REPLACED.
     * - While a seat has an open stream it is `connected`; when the last stream closes it is
     *   away (it stays in its hand; its clock acts for it).
     * - A client that reads too slowly is cut off with RESOURCE_EXHAUSTED / SLOW_CONSUMER; when
     *   the table moves to another node the stream ends with UNAVAILABLE / TABLE_MOVED.
     * - When the table closes, the stream sends the TableStatusChanged(CLOSED) update and ends
     *   with OK.
     * - The token is checked when the stream opens; the stream outlives the token's expiry (see
     *   "Token lifetime" above). Reopen it with a fresh token whenever convenient.
     * </pre>
     */
    public java.util.Iterator<stud.v1.WatchTableResponse> watchTable(
        stud.v1.WatchTableRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchTableMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Takes one action for the caller's seat in the running hand.
     * Idempotent by `action_id`: repeating a request with an action id the table has accepted
     * returns the first answer again and changes nothing. A refused action is not remembered:
     * its action id may be used again.
     * Errors (FAILED_PRECONDITION): NOT_YOUR_TURN, STALE_HAND (hand_number is not the running
     * hand), ILLEGAL_ACTION (kind not legal now, or amount not a legal size), NO_HAND_IN_PROGRESS;
     * (INVALID_ARGUMENT): AMOUNT_INVALID, IDEMPOTENCY_KEY_REUSED (same action_id, different
     * request).
     * </pre>
     */
    public stud.v1.ActResponse act(stud.v1.ActRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getActMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Leaves the table. Between hands (or while not dealt into the running hand) the player is
     * paid out at once and the seat frees. During a hand he is in, he stays in until it ends
     * (status LEAVING; his clock acts for him if he is away), then he is paid out. Calling it
     * again while leaving is harmless. Refused at a tournament table (FAILED_PRECONDITION /
     * TOURNAMENT_TABLE): tournament chips are not cashed out.
     * </pre>
     */
    public stud.v1.LeaveResponse leave(stud.v1.LeaveRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getLeaveMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sits out from the next hand: the player keeps his seat and stack but is not dealt in. A
     * hand he is already in is played out. Calling it while sitting out is harmless. Refused at a
     * tournament table (FAILED_PRECONDITION / TOURNAMENT_TABLE): an away player is dealt in and
     * his clock acts for him.
     * </pre>
     */
    public stud.v1.SitOutResponse sitOut(stud.v1.SitOutRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSitOutMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sits back in: dealt in from the next hand (if he has chips). Calling it while seated is
     * harmless.
     * </pre>
     */
    public stud.v1.SitInResponse sitIn(stud.v1.SitInRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSitInMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Shows the caller's cards after he won the last hand by folds, where the profile lets a
     * winner show (Rules.winner_may_show). Allowed until the next hand starts; everyone at the
     * table receives a CardsShown event (voluntary). Errors: SHOW_NOT_ALLOWED, STALE_HAND
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public stud.v1.ShowCardsResponse showCards(stud.v1.ShowCardsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getShowCardsMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * TableService is what players' clients (web, mobile, bots) call to play at a table.
   * Transport: gRPC for native clients; gRPC-Web and Connect for browsers, which use the unary
   * and server-streaming methods (WatchTable with Act). Play, the one bidirectional method, is for
   * native clients: gRPC, or Connect from a client that streams its request body while it reads
   * the response (a browser's fetch cannot).
   * Authentication: every call carries `authorization: Bearer &lt;token&gt;` with the player token the
   * lobby issued; the token names the player, and the player's seat at the table is found from
   * it. A player acts only for his own seat.
   * Token lifetime: the lobby's access tokens are short-lived (15 minutes by default) and the
   * client renews them with its refresh token (the lobby's POST /auth/refresh). The engine checks
   * a token when a call starts, locally (signature and expiry, no database):
   * - A unary call (Act, Leave, SitOut, SitIn, ShowCards) needs a token valid when it is made;
   *   an expired one fails with UNAUTHENTICATED / TOKEN_EXPIRED, and the same call with a fresh
   *   token succeeds (Act's idempotency by action_id makes the retry safe).
   * - A stream (WatchTable, Play) needs a valid token to open. Once open it lives on past its
   *   token's expiry: it only carries the seat's own view. Acts do not: a Play stream refuses the
   *   acts sent after its token expired with an `act` response `refused` UNAUTHENTICATED /
   *   TOKEN_EXPIRED, and the stream goes on. To present a fresh token the client opens a new
   *   Play (or WatchTable) with it, which replaces the old stream (WATCH_REPLACED) without
   *   touching the seat, or sends its acts through Act.
   * - Revoking a session (log-out, a password change) stops its refresh token at once; its last
   *   access token is accepted until it expires, since the engine does not ask the lobby.
   * Errors: google.rpc.Status with one google.rpc.ErrorInfo, domain "stud.v1"; reasons in
   * stud.v1.ErrorReason (errors.proto). Every RPC may fail with TOKEN_MISSING / TOKEN_INVALID /
   * TOKEN_EXPIRED (UNAUTHENTICATED), TABLE_NOT_FOUND (NOT_FOUND), TABLE_CLOSED (FAILED_PRECONDITION: the table
   * has closed, before or since an engine restart), NOT_SEATED (PERMISSION_DENIED),
   * INVALID_ARGUMENT for a malformed table name and MESSAGE_TOO_LARGE (RESOURCE_EXHAUSTED).
   * </pre>
   */
  public static final class TableServiceFutureStub extends io.grpc.stub.AbstractFutureStub<TableServiceFutureStub> {
    private TableServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TableServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TableServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Takes one action for the caller's seat in the running hand.
     * Idempotent by `action_id`: repeating a request with an action id the table has accepted
     * returns the first answer again and changes nothing. A refused action is not remembered:
     * its action id may be used again.
     * Errors (FAILED_PRECONDITION): NOT_YOUR_TURN, STALE_HAND (hand_number is not the running
     * hand), ILLEGAL_ACTION (kind not legal now, or amount not a legal size), NO_HAND_IN_PROGRESS;
     * (INVALID_ARGUMENT): AMOUNT_INVALID, IDEMPOTENCY_KEY_REUSED (same action_id, different
     * request).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.ActResponse> act(
        stud.v1.ActRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getActMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Leaves the table. Between hands (or while not dealt into the running hand) the player is
     * paid out at once and the seat frees. During a hand he is in, he stays in until it ends
     * (status LEAVING; his clock acts for him if he is away), then he is paid out. Calling it
     * again while leaving is harmless. Refused at a tournament table (FAILED_PRECONDITION /
     * TOURNAMENT_TABLE): tournament chips are not cashed out.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.LeaveResponse> leave(
        stud.v1.LeaveRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getLeaveMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Sits out from the next hand: the player keeps his seat and stack but is not dealt in. A
     * hand he is already in is played out. Calling it while sitting out is harmless. Refused at a
     * tournament table (FAILED_PRECONDITION / TOURNAMENT_TABLE): an away player is dealt in and
     * his clock acts for him.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.SitOutResponse> sitOut(
        stud.v1.SitOutRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSitOutMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Sits back in: dealt in from the next hand (if he has chips). Calling it while seated is
     * harmless.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.SitInResponse> sitIn(
        stud.v1.SitInRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSitInMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Shows the caller's cards after he won the last hand by folds, where the profile lets a
     * winner show (Rules.winner_may_show). Allowed until the next hand starts; everyone at the
     * table receives a CardsShown event (voluntary). Errors: SHOW_NOT_ALLOWED, STALE_HAND
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.ShowCardsResponse> showCards(
        stud.v1.ShowCardsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getShowCardsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_WATCH_TABLE = 0;
  private static final int METHODID_ACT = 1;
  private static final int METHODID_LEAVE = 2;
  private static final int METHODID_SIT_OUT = 3;
  private static final int METHODID_SIT_IN = 4;
  private static final int METHODID_SHOW_CARDS = 5;
  private static final int METHODID_PLAY = 6;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final TableServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(TableServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_WATCH_TABLE:
          serviceImpl.watchTable((stud.v1.WatchTableRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.WatchTableResponse>) responseObserver);
          break;
        case METHODID_ACT:
          serviceImpl.act((stud.v1.ActRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.ActResponse>) responseObserver);
          break;
        case METHODID_LEAVE:
          serviceImpl.leave((stud.v1.LeaveRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.LeaveResponse>) responseObserver);
          break;
        case METHODID_SIT_OUT:
          serviceImpl.sitOut((stud.v1.SitOutRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.SitOutResponse>) responseObserver);
          break;
        case METHODID_SIT_IN:
          serviceImpl.sitIn((stud.v1.SitInRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.SitInResponse>) responseObserver);
          break;
        case METHODID_SHOW_CARDS:
          serviceImpl.showCards((stud.v1.ShowCardsRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.ShowCardsResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_PLAY:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.play(
              (io.grpc.stub.StreamObserver<stud.v1.PlayResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (TableServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .addMethod(getWatchTableMethod())
              .addMethod(getActMethod())
              .addMethod(getPlayMethod())
              .addMethod(getLeaveMethod())
              .addMethod(getSitOutMethod())
              .addMethod(getSitInMethod())
              .addMethod(getShowCardsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
