package stud.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * AdminService is called by the lobby (to open tables and seat players) and by ops.
 * Authentication: `authorization: Bearer &lt;token&gt;`.
 * - The lobby's service token may call CreateTable, SeatPlayer, AddChips, ListTables,
 *   ListSeatSessions, RemovePlayer, RotateSeed and CloseTable, and the tournament director's
 *   methods: SetStakes, MovePlayer, SetHandHold, SetTournamentInfo and AwardPlace.
 * - Everything else (GetTable, PauseTable, ResumeTable, CancelHand, Drain) needs the admin
 *   token, which may also call every method above. Otherwise PERMISSION_DENIED /
 *   ADMIN_REQUIRED.
 * Errors: google.rpc.Status with one google.rpc.ErrorInfo, domain "stud.v1"; reasons in
 * stud.v1.ErrorReason (errors.proto). Methods on a table may fail with TABLE_NOT_FOUND
 * (NOT_FOUND) and INVALID_ARGUMENT for a malformed name; every method with
 * MESSAGE_TOO_LARGE (RESOURCE_EXHAUSTED).
 * Closed tables stay visible, also after an engine restart (no table runs for them then):
 * GetTable, ListTables (statuses CLOSED) and ListSeatSessions show them, and every method
 * answers on them as on any closed table (CloseTable again is harmless; SeatPlayer and
 * RotateSeed fail with TABLE_CLOSED, PauseTable and ResumeTable with TABLE_STATE; retries of
 * AddChips and RemovePlayer get their first answers).
 * Money: every RPC that moves chips into or out of a table is idempotent on an id the lobby
 * chose (request_id, seat_session_id): retrying it never moves chips twice, and a retry gets the
 * first answer whenever it comes (after later hands, the session's close, an engine restart).
 * Reusing an id with different parameters fails with INVALID_ARGUMENT /
 * IDEMPOTENCY_KEY_REUSED (metadata "field": the id's field, or the parameter that differs).
 * Tournaments (docs/tournaments.md, "Engine side"): the lobby's director opens each table with
 * CreateTableRequest.tournament, seats players with the chips it gives them (SeatPlayer), sets
 * each level's stakes (SetStakes), moves players between tables (MovePlayer, then SeatPlayer at
 * the destination with the chips MovePlayer answered), plays hand-for-hand (SetHandHold),
 * pushes what players see of the tournament (SetTournamentInfo, AwardPlace), and learns each
 * hand's end from the store it shares with the engine (hands, hand_players, seat sessions
 * closed BUSTED), without a stream. Tournament methods on a cash table fail with
 * FAILED_PRECONDITION / NOT_A_TOURNAMENT_TABLE.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: stud/v1/admin_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class AdminServiceGrpc {

  private AdminServiceGrpc() {}

  public static final String SERVICE_NAME = "stud.v1.AdminService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<stud.v1.CreateTableRequest,
      stud.v1.CreateTableResponse> getCreateTableMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateTable",
      requestType = stud.v1.CreateTableRequest.class,
      responseType = stud.v1.CreateTableResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.CreateTableRequest,
      stud.v1.CreateTableResponse> getCreateTableMethod() {
    io.grpc.MethodDescriptor<stud.v1.CreateTableRequest, stud.v1.CreateTableResponse> getCreateTableMethod;
    if ((getCreateTableMethod = AdminServiceGrpc.getCreateTableMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getCreateTableMethod = AdminServiceGrpc.getCreateTableMethod) == null) {
          AdminServiceGrpc.getCreateTableMethod = getCreateTableMethod =
              io.grpc.MethodDescriptor.<stud.v1.CreateTableRequest, stud.v1.CreateTableResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateTable"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.CreateTableRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.CreateTableResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getCreateTableMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.SeatPlayerRequest,
      stud.v1.SeatPlayerResponse> getSeatPlayerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SeatPlayer",
      requestType = stud.v1.SeatPlayerRequest.class,
      responseType = stud.v1.SeatPlayerResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.SeatPlayerRequest,
      stud.v1.SeatPlayerResponse> getSeatPlayerMethod() {
    io.grpc.MethodDescriptor<stud.v1.SeatPlayerRequest, stud.v1.SeatPlayerResponse> getSeatPlayerMethod;
    if ((getSeatPlayerMethod = AdminServiceGrpc.getSeatPlayerMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getSeatPlayerMethod = AdminServiceGrpc.getSeatPlayerMethod) == null) {
          AdminServiceGrpc.getSeatPlayerMethod = getSeatPlayerMethod =
              io.grpc.MethodDescriptor.<stud.v1.SeatPlayerRequest, stud.v1.SeatPlayerResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SeatPlayer"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SeatPlayerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SeatPlayerResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getSeatPlayerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.AddChipsRequest,
      stud.v1.AddChipsResponse> getAddChipsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AddChips",
      requestType = stud.v1.AddChipsRequest.class,
      responseType = stud.v1.AddChipsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.AddChipsRequest,
      stud.v1.AddChipsResponse> getAddChipsMethod() {
    io.grpc.MethodDescriptor<stud.v1.AddChipsRequest, stud.v1.AddChipsResponse> getAddChipsMethod;
    if ((getAddChipsMethod = AdminServiceGrpc.getAddChipsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getAddChipsMethod = AdminServiceGrpc.getAddChipsMethod) == null) {
          AdminServiceGrpc.getAddChipsMethod = getAddChipsMethod =
              io.grpc.MethodDescriptor.<stud.v1.AddChipsRequest, stud.v1.AddChipsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AddChips"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.AddChipsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.AddChipsResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getAddChipsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.ListTablesRequest,
      stud.v1.ListTablesResponse> getListTablesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTables",
      requestType = stud.v1.ListTablesRequest.class,
      responseType = stud.v1.ListTablesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.ListTablesRequest,
      stud.v1.ListTablesResponse> getListTablesMethod() {
    io.grpc.MethodDescriptor<stud.v1.ListTablesRequest, stud.v1.ListTablesResponse> getListTablesMethod;
    if ((getListTablesMethod = AdminServiceGrpc.getListTablesMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListTablesMethod = AdminServiceGrpc.getListTablesMethod) == null) {
          AdminServiceGrpc.getListTablesMethod = getListTablesMethod =
              io.grpc.MethodDescriptor.<stud.v1.ListTablesRequest, stud.v1.ListTablesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTables"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ListTablesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ListTablesResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getListTablesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.GetTableRequest,
      stud.v1.GetTableResponse> getGetTableMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetTable",
      requestType = stud.v1.GetTableRequest.class,
      responseType = stud.v1.GetTableResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.GetTableRequest,
      stud.v1.GetTableResponse> getGetTableMethod() {
    io.grpc.MethodDescriptor<stud.v1.GetTableRequest, stud.v1.GetTableResponse> getGetTableMethod;
    if ((getGetTableMethod = AdminServiceGrpc.getGetTableMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getGetTableMethod = AdminServiceGrpc.getGetTableMethod) == null) {
          AdminServiceGrpc.getGetTableMethod = getGetTableMethod =
              io.grpc.MethodDescriptor.<stud.v1.GetTableRequest, stud.v1.GetTableResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetTable"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.GetTableRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.GetTableResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getGetTableMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.PauseTableRequest,
      stud.v1.PauseTableResponse> getPauseTableMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PauseTable",
      requestType = stud.v1.PauseTableRequest.class,
      responseType = stud.v1.PauseTableResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.PauseTableRequest,
      stud.v1.PauseTableResponse> getPauseTableMethod() {
    io.grpc.MethodDescriptor<stud.v1.PauseTableRequest, stud.v1.PauseTableResponse> getPauseTableMethod;
    if ((getPauseTableMethod = AdminServiceGrpc.getPauseTableMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getPauseTableMethod = AdminServiceGrpc.getPauseTableMethod) == null) {
          AdminServiceGrpc.getPauseTableMethod = getPauseTableMethod =
              io.grpc.MethodDescriptor.<stud.v1.PauseTableRequest, stud.v1.PauseTableResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PauseTable"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.PauseTableRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.PauseTableResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getPauseTableMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.ResumeTableRequest,
      stud.v1.ResumeTableResponse> getResumeTableMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ResumeTable",
      requestType = stud.v1.ResumeTableRequest.class,
      responseType = stud.v1.ResumeTableResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.ResumeTableRequest,
      stud.v1.ResumeTableResponse> getResumeTableMethod() {
    io.grpc.MethodDescriptor<stud.v1.ResumeTableRequest, stud.v1.ResumeTableResponse> getResumeTableMethod;
    if ((getResumeTableMethod = AdminServiceGrpc.getResumeTableMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getResumeTableMethod = AdminServiceGrpc.getResumeTableMethod) == null) {
          AdminServiceGrpc.getResumeTableMethod = getResumeTableMethod =
              io.grpc.MethodDescriptor.<stud.v1.ResumeTableRequest, stud.v1.ResumeTableResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ResumeTable"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ResumeTableRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ResumeTableResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getResumeTableMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.CloseTableRequest,
      stud.v1.CloseTableResponse> getCloseTableMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CloseTable",
      requestType = stud.v1.CloseTableRequest.class,
      responseType = stud.v1.CloseTableResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.CloseTableRequest,
      stud.v1.CloseTableResponse> getCloseTableMethod() {
    io.grpc.MethodDescriptor<stud.v1.CloseTableRequest, stud.v1.CloseTableResponse> getCloseTableMethod;
    if ((getCloseTableMethod = AdminServiceGrpc.getCloseTableMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getCloseTableMethod = AdminServiceGrpc.getCloseTableMethod) == null) {
          AdminServiceGrpc.getCloseTableMethod = getCloseTableMethod =
              io.grpc.MethodDescriptor.<stud.v1.CloseTableRequest, stud.v1.CloseTableResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CloseTable"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.CloseTableRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.CloseTableResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getCloseTableMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.CancelHandRequest,
      stud.v1.CancelHandResponse> getCancelHandMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CancelHand",
      requestType = stud.v1.CancelHandRequest.class,
      responseType = stud.v1.CancelHandResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.CancelHandRequest,
      stud.v1.CancelHandResponse> getCancelHandMethod() {
    io.grpc.MethodDescriptor<stud.v1.CancelHandRequest, stud.v1.CancelHandResponse> getCancelHandMethod;
    if ((getCancelHandMethod = AdminServiceGrpc.getCancelHandMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getCancelHandMethod = AdminServiceGrpc.getCancelHandMethod) == null) {
          AdminServiceGrpc.getCancelHandMethod = getCancelHandMethod =
              io.grpc.MethodDescriptor.<stud.v1.CancelHandRequest, stud.v1.CancelHandResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CancelHand"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.CancelHandRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.CancelHandResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getCancelHandMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.RemovePlayerRequest,
      stud.v1.RemovePlayerResponse> getRemovePlayerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RemovePlayer",
      requestType = stud.v1.RemovePlayerRequest.class,
      responseType = stud.v1.RemovePlayerResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.RemovePlayerRequest,
      stud.v1.RemovePlayerResponse> getRemovePlayerMethod() {
    io.grpc.MethodDescriptor<stud.v1.RemovePlayerRequest, stud.v1.RemovePlayerResponse> getRemovePlayerMethod;
    if ((getRemovePlayerMethod = AdminServiceGrpc.getRemovePlayerMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRemovePlayerMethod = AdminServiceGrpc.getRemovePlayerMethod) == null) {
          AdminServiceGrpc.getRemovePlayerMethod = getRemovePlayerMethod =
              io.grpc.MethodDescriptor.<stud.v1.RemovePlayerRequest, stud.v1.RemovePlayerResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RemovePlayer"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.RemovePlayerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.RemovePlayerResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getRemovePlayerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.RotateSeedRequest,
      stud.v1.RotateSeedResponse> getRotateSeedMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RotateSeed",
      requestType = stud.v1.RotateSeedRequest.class,
      responseType = stud.v1.RotateSeedResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.RotateSeedRequest,
      stud.v1.RotateSeedResponse> getRotateSeedMethod() {
    io.grpc.MethodDescriptor<stud.v1.RotateSeedRequest, stud.v1.RotateSeedResponse> getRotateSeedMethod;
    if ((getRotateSeedMethod = AdminServiceGrpc.getRotateSeedMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRotateSeedMethod = AdminServiceGrpc.getRotateSeedMethod) == null) {
          AdminServiceGrpc.getRotateSeedMethod = getRotateSeedMethod =
              io.grpc.MethodDescriptor.<stud.v1.RotateSeedRequest, stud.v1.RotateSeedResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RotateSeed"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.RotateSeedRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.RotateSeedResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getRotateSeedMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.DrainRequest,
      stud.v1.DrainResponse> getDrainMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Drain",
      requestType = stud.v1.DrainRequest.class,
      responseType = stud.v1.DrainResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.DrainRequest,
      stud.v1.DrainResponse> getDrainMethod() {
    io.grpc.MethodDescriptor<stud.v1.DrainRequest, stud.v1.DrainResponse> getDrainMethod;
    if ((getDrainMethod = AdminServiceGrpc.getDrainMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getDrainMethod = AdminServiceGrpc.getDrainMethod) == null) {
          AdminServiceGrpc.getDrainMethod = getDrainMethod =
              io.grpc.MethodDescriptor.<stud.v1.DrainRequest, stud.v1.DrainResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Drain"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.DrainRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.DrainResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getDrainMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.MoveTableRequest,
      stud.v1.MoveTableResponse> getMoveTableMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "MoveTable",
      requestType = stud.v1.MoveTableRequest.class,
      responseType = stud.v1.MoveTableResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.MoveTableRequest,
      stud.v1.MoveTableResponse> getMoveTableMethod() {
    io.grpc.MethodDescriptor<stud.v1.MoveTableRequest, stud.v1.MoveTableResponse> getMoveTableMethod;
    if ((getMoveTableMethod = AdminServiceGrpc.getMoveTableMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getMoveTableMethod = AdminServiceGrpc.getMoveTableMethod) == null) {
          AdminServiceGrpc.getMoveTableMethod = getMoveTableMethod =
              io.grpc.MethodDescriptor.<stud.v1.MoveTableRequest, stud.v1.MoveTableResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "MoveTable"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.MoveTableRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.MoveTableResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getMoveTableMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.ListSeatSessionsRequest,
      stud.v1.ListSeatSessionsResponse> getListSeatSessionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListSeatSessions",
      requestType = stud.v1.ListSeatSessionsRequest.class,
      responseType = stud.v1.ListSeatSessionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.ListSeatSessionsRequest,
      stud.v1.ListSeatSessionsResponse> getListSeatSessionsMethod() {
    io.grpc.MethodDescriptor<stud.v1.ListSeatSessionsRequest, stud.v1.ListSeatSessionsResponse> getListSeatSessionsMethod;
    if ((getListSeatSessionsMethod = AdminServiceGrpc.getListSeatSessionsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListSeatSessionsMethod = AdminServiceGrpc.getListSeatSessionsMethod) == null) {
          AdminServiceGrpc.getListSeatSessionsMethod = getListSeatSessionsMethod =
              io.grpc.MethodDescriptor.<stud.v1.ListSeatSessionsRequest, stud.v1.ListSeatSessionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListSeatSessions"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ListSeatSessionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ListSeatSessionsResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getListSeatSessionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.ListNodesRequest,
      stud.v1.ListNodesResponse> getListNodesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListNodes",
      requestType = stud.v1.ListNodesRequest.class,
      responseType = stud.v1.ListNodesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.ListNodesRequest,
      stud.v1.ListNodesResponse> getListNodesMethod() {
    io.grpc.MethodDescriptor<stud.v1.ListNodesRequest, stud.v1.ListNodesResponse> getListNodesMethod;
    if ((getListNodesMethod = AdminServiceGrpc.getListNodesMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListNodesMethod = AdminServiceGrpc.getListNodesMethod) == null) {
          AdminServiceGrpc.getListNodesMethod = getListNodesMethod =
              io.grpc.MethodDescriptor.<stud.v1.ListNodesRequest, stud.v1.ListNodesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListNodes"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ListNodesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.ListNodesResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getListNodesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.SetStakesRequest,
      stud.v1.SetStakesResponse> getSetStakesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetStakes",
      requestType = stud.v1.SetStakesRequest.class,
      responseType = stud.v1.SetStakesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.SetStakesRequest,
      stud.v1.SetStakesResponse> getSetStakesMethod() {
    io.grpc.MethodDescriptor<stud.v1.SetStakesRequest, stud.v1.SetStakesResponse> getSetStakesMethod;
    if ((getSetStakesMethod = AdminServiceGrpc.getSetStakesMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getSetStakesMethod = AdminServiceGrpc.getSetStakesMethod) == null) {
          AdminServiceGrpc.getSetStakesMethod = getSetStakesMethod =
              io.grpc.MethodDescriptor.<stud.v1.SetStakesRequest, stud.v1.SetStakesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetStakes"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SetStakesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SetStakesResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getSetStakesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.MovePlayerRequest,
      stud.v1.MovePlayerResponse> getMovePlayerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "MovePlayer",
      requestType = stud.v1.MovePlayerRequest.class,
      responseType = stud.v1.MovePlayerResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.MovePlayerRequest,
      stud.v1.MovePlayerResponse> getMovePlayerMethod() {
    io.grpc.MethodDescriptor<stud.v1.MovePlayerRequest, stud.v1.MovePlayerResponse> getMovePlayerMethod;
    if ((getMovePlayerMethod = AdminServiceGrpc.getMovePlayerMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getMovePlayerMethod = AdminServiceGrpc.getMovePlayerMethod) == null) {
          AdminServiceGrpc.getMovePlayerMethod = getMovePlayerMethod =
              io.grpc.MethodDescriptor.<stud.v1.MovePlayerRequest, stud.v1.MovePlayerResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "MovePlayer"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.MovePlayerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.MovePlayerResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getMovePlayerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.SetHandHoldRequest,
      stud.v1.SetHandHoldResponse> getSetHandHoldMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetHandHold",
      requestType = stud.v1.SetHandHoldRequest.class,
      responseType = stud.v1.SetHandHoldResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.SetHandHoldRequest,
      stud.v1.SetHandHoldResponse> getSetHandHoldMethod() {
    io.grpc.MethodDescriptor<stud.v1.SetHandHoldRequest, stud.v1.SetHandHoldResponse> getSetHandHoldMethod;
    if ((getSetHandHoldMethod = AdminServiceGrpc.getSetHandHoldMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getSetHandHoldMethod = AdminServiceGrpc.getSetHandHoldMethod) == null) {
          AdminServiceGrpc.getSetHandHoldMethod = getSetHandHoldMethod =
              io.grpc.MethodDescriptor.<stud.v1.SetHandHoldRequest, stud.v1.SetHandHoldResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetHandHold"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SetHandHoldRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SetHandHoldResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getSetHandHoldMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.SetTournamentInfoRequest,
      stud.v1.SetTournamentInfoResponse> getSetTournamentInfoMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetTournamentInfo",
      requestType = stud.v1.SetTournamentInfoRequest.class,
      responseType = stud.v1.SetTournamentInfoResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.SetTournamentInfoRequest,
      stud.v1.SetTournamentInfoResponse> getSetTournamentInfoMethod() {
    io.grpc.MethodDescriptor<stud.v1.SetTournamentInfoRequest, stud.v1.SetTournamentInfoResponse> getSetTournamentInfoMethod;
    if ((getSetTournamentInfoMethod = AdminServiceGrpc.getSetTournamentInfoMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getSetTournamentInfoMethod = AdminServiceGrpc.getSetTournamentInfoMethod) == null) {
          AdminServiceGrpc.getSetTournamentInfoMethod = getSetTournamentInfoMethod =
              io.grpc.MethodDescriptor.<stud.v1.SetTournamentInfoRequest, stud.v1.SetTournamentInfoResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetTournamentInfo"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SetTournamentInfoRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.SetTournamentInfoResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getSetTournamentInfoMethod;
  }

  private static volatile io.grpc.MethodDescriptor<stud.v1.AwardPlaceRequest,
      stud.v1.AwardPlaceResponse> getAwardPlaceMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AwardPlace",
      requestType = stud.v1.AwardPlaceRequest.class,
      responseType = stud.v1.AwardPlaceResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<stud.v1.AwardPlaceRequest,
      stud.v1.AwardPlaceResponse> getAwardPlaceMethod() {
    io.grpc.MethodDescriptor<stud.v1.AwardPlaceRequest, stud.v1.AwardPlaceResponse> getAwardPlaceMethod;
    if ((getAwardPlaceMethod = AdminServiceGrpc.getAwardPlaceMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getAwardPlaceMethod = AdminServiceGrpc.getAwardPlaceMethod) == null) {
          AdminServiceGrpc.getAwardPlaceMethod = getAwardPlaceMethod =
              io.grpc.MethodDescriptor.<stud.v1.AwardPlaceRequest, stud.v1.AwardPlaceResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AwardPlace"))
              .setIdempotent(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.AwardPlaceRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.lite.ProtoLiteUtils.marshaller(
                  stud.v1.AwardPlaceResponse.getDefaultInstance()))
              .build();
        }
      }
    }
    return getAwardPlaceMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AdminServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceStub>() {
        @java.lang.Override
        public AdminServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceStub(channel, callOptions);
        }
      };
    return AdminServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AdminServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingStub>() {
        @java.lang.Override
        public AdminServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceBlockingStub(channel, callOptions);
        }
      };
    return AdminServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AdminServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceFutureStub>() {
        @java.lang.Override
        public AdminServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceFutureStub(channel, callOptions);
        }
      };
    return AdminServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * AdminService is called by the lobby (to open tables and seat players) and by ops.
   * Authentication: `authorization: Bearer &lt;token&gt;`.
   * - The lobby's service token may call CreateTable, SeatPlayer, AddChips, ListTables,
   *   ListSeatSessions, RemovePlayer, RotateSeed and CloseTable, and the tournament director's
   *   methods: SetStakes, MovePlayer, SetHandHold, SetTournamentInfo and AwardPlace.
   * - Everything else (GetTable, PauseTable, ResumeTable, CancelHand, Drain) needs the admin
   *   token, which may also call every method above. Otherwise PERMISSION_DENIED /
   *   ADMIN_REQUIRED.
   * Errors: google.rpc.Status with one google.rpc.ErrorInfo, domain "stud.v1"; reasons in
   * stud.v1.ErrorReason (errors.proto). Methods on a table may fail with TABLE_NOT_FOUND
   * (NOT_FOUND) and INVALID_ARGUMENT for a malformed name; every method with
   * MESSAGE_TOO_LARGE (RESOURCE_EXHAUSTED).
   * Closed tables stay visible, also after an engine restart (no table runs for them then):
   * GetTable, ListTables (statuses CLOSED) and ListSeatSessions show them, and every method
   * answers on them as on any closed table (CloseTable again is harmless; SeatPlayer and
   * RotateSeed fail with TABLE_CLOSED, PauseTable and ResumeTable with TABLE_STATE; retries of
   * AddChips and RemovePlayer get their first answers).
   * Money: every RPC that moves chips into or out of a table is idempotent on an id the lobby
   * chose (request_id, seat_session_id): retrying it never moves chips twice, and a retry gets the
   * first answer whenever it comes (after later hands, the session's close, an engine restart).
   * Reusing an id with different parameters fails with INVALID_ARGUMENT /
   * IDEMPOTENCY_KEY_REUSED (metadata "field": the id's field, or the parameter that differs).
   * Tournaments (docs/tournaments.md, "Engine side"): the lobby's director opens each table with
   * CreateTableRequest.tournament, seats players with the chips it gives them (SeatPlayer), sets
   * each level's stakes (SetStakes), moves players between tables (MovePlayer, then SeatPlayer at
   * the destination with the chips MovePlayer answered), plays hand-for-hand (SetHandHold),
   * pushes what players see of the tournament (SetTournamentInfo, AwardPlace), and learns each
   * hand's end from the store it shares with the engine (hands, hand_players, seat sessions
   * closed BUSTED), without a stream. Tournament methods on a cash table fail with
   * FAILED_PRECONDITION / NOT_A_TOURNAMENT_TABLE.
   * </pre>
   */
  public static abstract class AdminServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Opens a table. Idempotent by request_id: a retry returns the table the first call created.
     * Errors: UNKNOWN_PROFILE, INVALID_SETTING, INVALID_ARGUMENT (INVALID_ARGUMENT); DRAINING
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public void createTable(stud.v1.CreateTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.CreateTableResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateTableMethod(), responseObserver);
    }

    /**
     * <pre>
     * Seats a player whose buy-in the lobby has already moved to the table's escrow (at a
     * tournament table: with the tournament chips the director gives him, any positive amount;
     * between hands or during one, he is dealt in from the next hand). Idempotent by
     * seat_session_id. Errors: SEAT_TAKEN, TABLE_FULL, ALREADY_SEATED,
     * TABLE_CLOSED (FAILED_PRECONDITION); INVALID_SEAT, BUY_IN_OUT_OF_RANGE (INVALID_ARGUMENT).
     * </pre>
     */
    public void seatPlayer(stud.v1.SeatPlayerRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SeatPlayerResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSeatPlayerMethod(), responseObserver);
    }

    /**
     * <pre>
     * Adds chips to a seated player's stack, between hands only (table stakes). Idempotent by
     * request_id: a retry gets the first answer (the session as that addition left it) and adds
     * nothing, even while a later hand runs or once the session has closed; the same request_id
     * with another seat_session_id or amount fails with IDEMPOTENCY_KEY_REUSED (field
     * "request_id"). Errors: HAND_IN_PROGRESS (he is dealt into the running hand: retry after it),
     * SEAT_SESSION_CLOSED, TABLE_CLOSED (FAILED_PRECONDITION); SEAT_SESSION_NOT_FOUND
     * (NOT_FOUND); BUY_IN_OUT_OF_RANGE (INVALID_ARGUMENT); TOURNAMENT_TABLE (FAILED_PRECONDITION:
     * no top-ups in a tournament).
     * </pre>
     */
    public void addChips(stud.v1.AddChipsRequest request,
        io.grpc.stub.StreamObserver<stud.v1.AddChipsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAddChipsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists tables, newest first, one page at a time.
     * </pre>
     */
    public void listTables(stud.v1.ListTablesRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ListTablesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListTablesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Ops' full view of a table with every card: every seat's down cards, folded ones
     * included. Every call is logged (caller, table, hand, reason). Any node answers for any
     * table of the room; a table another node serves comes as stored, with its placement and
     * no snapshot.
     * </pre>
     */
    public void getTable(stud.v1.GetTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.GetTableResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetTableMethod(), responseObserver);
    }

    /**
     * <pre>
     * Pauses a table: takes effect between hands (PAUSING while a hand runs, then PAUSED).
     * Errors: TABLE_STATE (already paused or closed).
     * </pre>
     */
    public void pauseTable(stud.v1.PauseTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.PauseTableResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPauseTableMethod(), responseObserver);
    }

    /**
     * <pre>
     * Resumes a paused (or pausing) table: hands are dealt again. Errors: TABLE_STATE.
     * </pre>
     */
    public void resumeTable(stud.v1.ResumeTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ResumeTableResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getResumeTableMethod(), responseObserver);
    }

    /**
     * <pre>
     * Closes a table: a running hand is finished first (status CLOSING), then every seat session
     * is closed and paid out and the dealer seed is revealed (CLOSED). Returns at once; the
     * sessions are final when the table is CLOSED (see ListSeatSessions). Calling it again is
     * harmless.
     * </pre>
     */
    public void closeTable(stud.v1.CloseTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.CloseTableResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCloseTableMethod(), responseObserver);
    }

    /**
     * <pre>
     * Cancels the running hand: every chip put in during it goes back to its owner, nothing is
     * won, and its nonce stays used. The hand's stored record keeps what was dealt and done before
     * the cancel for the audit: every card with its deck position, every action, the chips given
     * back, and its PHH (marked `_cancelled = true`). A hand that was running when the engine
     * died is cancelled when it restarts; its record keeps the deal it began with, rebuilt from
     * the seed pair and nonce (decisions are stored only when a hand ends, so those taken before
     * the crash are not known). Errors: NO_HAND_IN_PROGRESS, STALE_HAND (FAILED_PRECONDITION).
     * </pre>
     */
    public void cancelHand(stud.v1.CancelHandRequest request,
        io.grpc.stub.StreamObserver<stud.v1.CancelHandResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCancelHandMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes a player. Like Leave: between hands he is paid out at once; in a hand he is dealt
     * into, he plays it out (his clock acts for him) and is paid out when it ends. The session
     * closes as REMOVED, or as LEFT when the request relays the player's own leave (by_player).
     * Idempotent by seat_session_id: a retry with the same reason and by_player gets the first
     * answer (CLOSED, or CLOSING as it was then) and changes nothing, however late; another
     * reason or by_player fails with IDEMPOTENCY_KEY_REUSED (field "reason" or "by_player").
     * Errors: SEAT_SESSION_NOT_FOUND (NOT_FOUND: no open session with this id at this table,
     * e.g. he left by himself).
     * </pre>
     */
    public void removePlayer(stud.v1.RemovePlayerRequest request,
        io.grpc.stub.StreamObserver<stud.v1.RemovePlayerResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRemovePlayerMethod(), responseObserver);
    }

    /**
     * <pre>
     * Rotates the table's seed pair between hands: reveals the current dealer seed (every hand it
     * dealt can now be checked), switches to the next seed (whose commitment was shown) and
     * commits to a new next one. Errors: HAND_IN_PROGRESS (FAILED_PRECONDITION).
     * </pre>
     */
    public void rotateSeed(stud.v1.RotateSeedRequest request,
        io.grpc.stub.StreamObserver<stud.v1.RotateSeedResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRotateSeedMethod(), responseObserver);
    }

    /**
     * <pre>
     * Drains this engine node: no new table opens and no new hand starts on it; running hands are
     * finished. Returns once every hand has ended (set a deadline on the call to bound the wait;
     * calling it again continues waiting). Tables stay open, paused, and can be taken over by
     * another node. Each open table shows it at once (GetTable, ListTables, and a
     * TableStatusChanged on its streams): PAUSING while its hand plays out, then PAUSED.
     * The status is stored as shown (ListTables' `statuses` filter matches it) and the pause
     * outlasts a restart: the node that loads the table next (this one restarted, or another)
     * deals nothing there until ResumeTable. (The drain of a node stopping on SIGTERM is not
     * Drain: the next start deals again.) ResumeTable on a drained node fails with DRAINING.
     * </pre>
     */
    public void drain(stud.v1.DrainRequest request,
        io.grpc.stub.StreamObserver<stud.v1.DrainResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDrainMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves one table of this node to another live node, between hands: no new hand starts on
     * it, the running hand (if any) plays out, then the table is handed over in the shared
     * database (its fencing number moves on: this node can write nothing more to it) and the
     * node there loads it within a sixth of its lease; its players keep their seats and their
     * stacks, a paused table stays paused, a playing one deals on there. The table's streams end
     * with UNAVAILABLE / TABLE_MOVED, ErrorInfo metadata "node", "grpc_address" and "web_url"
     * naming the new node; calls for it here get the same refusal. Returns once handed over.
     * Idempotent: a retry once the table is on `node` answers the same and changes nothing.
     * Errors: TABLE_ON_OTHER_NODE (another node serves it), TABLE_CLOSED, INVALID_ARGUMENT
     * (field "node": this node, a node that is not live, or none given and no other is live).
     * </pre>
     */
    public void moveTable(stud.v1.MoveTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.MoveTableResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getMoveTableMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists seat sessions (e.g. closed ones the lobby has yet to settle), oldest first.
     * </pre>
     */
    public void listSeatSessions(stud.v1.ListSeatSessionsRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ListSeatSessionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListSeatSessionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists the engine nodes of the registry this node shares with the others (every node on
     * the same database), by id: where each is reached, its state and lease, and its open
     * tables. Any node answers for all of them.
     * </pre>
     */
    public void listNodes(stud.v1.ListNodesRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ListNodesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListNodesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Tournament table: sets the stakes of a level, from the next hand on (never the running
     * one): between hands at once, during a hand when it ends (TournamentState.next_level and
     * next_stakes show it until then). Every stream gets StakesChanged; TableSettings.stakes and
     * TournamentState.level show the level once it plays. The stakes are stored with the table:
     * a restarted engine deals the next hand at them. Idempotent: setting the level and stakes
     * the table already has (or will have from the next hand) changes nothing and sends nothing.
     * Errors: INVALID_ARGUMENT (level &lt; 1, or stakes as CreateTable refuses them);
     * NOT_A_TOURNAMENT_TABLE, TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public void setStakes(stud.v1.SetStakesRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SetStakesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetStakesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Tournament table: takes a player off the table for a seat elsewhere (balancing, breaking).
     * Between hands, or when he is not dealt into the running hand, at once; else when the hand
     * ends (session CLOSING until then; his clock acts for him meanwhile). His session closes
     * MOVED with his chips (`stack`): the director seats him at `destination_table` with exactly
     * these chips (SeatPlayer there, a new seat_session_id). A player whose last chip goes in
     * that hand busts instead (BUSTED, stack 0): nothing to seat. His stream gets PlayerMoved
     * with the destination and its engine addresses (as everyone's does), then ends cleanly.
     * Idempotent by request_id: a retry gets the session as it is now (CLOSING while he plays
     * out the hand, then CLOSED with the chips) whenever it comes, and moves nothing again (the
     * director may poll with it until CLOSED); the same request_id for
     * another session or destination, or a second move of the same session under another
     * request_id, fails with IDEMPOTENCY_KEY_REUSED (field "request_id"). Errors:
     * SEAT_SESSION_NOT_FOUND (NOT_FOUND); NOT_A_TOURNAMENT_TABLE (FAILED_PRECONDITION).
     * </pre>
     */
    public void movePlayer(stud.v1.MovePlayerRequest request,
        io.grpc.stub.StreamObserver<stud.v1.MovePlayerResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getMovePlayerMethod(), responseObserver);
    }

    /**
     * <pre>
     * Tournament table, hand-for-hand: `held` true holds the next hand (the running one plays
     * out; no new hand starts until released), false releases it (the next hand starts at once
     * when at least two players can play). Idempotent: holding a held table or releasing a free
     * one changes nothing. Stored with the table (a restart keeps the hold); every stream gets
     * HandHoldChanged and TournamentState.hand_held shows it. The answer's Table says whether a
     * hand still runs (hand_in_progress): the director releases every table of the tournament
     * together once none of them has a hand running. Errors: NOT_A_TOURNAMENT_TABLE,
     * TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public void setHandHold(stud.v1.SetHandHoldRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SetHandHoldResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetHandHoldMethod(), responseObserver);
    }

    /**
     * <pre>
     * Tournament table: pushes the tournament's state (level, time or hands to the next level,
     * players left, average stack, entrants, prize pool) to every stream of the table
     * (TournamentInfoChanged; TournamentState.info in every view). Shown as given (the engine
     * computes none of it); stored with the table. Pushing the same info again sends nothing.
     * Errors: INVALID_ARGUMENT (a negative count); NOT_A_TOURNAMENT_TABLE, TABLE_CLOSED
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public void setTournamentInfo(stud.v1.SetTournamentInfoRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SetTournamentInfoResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetTournamentInfoMethod(), responseObserver);
    }

    /**
     * <pre>
     * Tournament table: tells a player his final place and prize, when he busts (at the table he
     * busted at: his stream stays open as a railbird's for it) or wins. Every stream of the table
     * gets TournamentPlaced. Idempotent by player: the same place and prize again sends nothing;
     * another place or prize for him fails with IDEMPOTENCY_KEY_REUSED (field "player_id").
     * Errors: INVALID_ARGUMENT (place &lt; 1, prize &lt; 0); NOT_A_TOURNAMENT_TABLE,
     * TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public void awardPlace(stud.v1.AwardPlaceRequest request,
        io.grpc.stub.StreamObserver<stud.v1.AwardPlaceResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAwardPlaceMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getCreateTableMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.CreateTableRequest,
                stud.v1.CreateTableResponse>(
                  this, METHODID_CREATE_TABLE)))
          .addMethod(
            getSeatPlayerMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.SeatPlayerRequest,
                stud.v1.SeatPlayerResponse>(
                  this, METHODID_SEAT_PLAYER)))
          .addMethod(
            getAddChipsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.AddChipsRequest,
                stud.v1.AddChipsResponse>(
                  this, METHODID_ADD_CHIPS)))
          .addMethod(
            getListTablesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.ListTablesRequest,
                stud.v1.ListTablesResponse>(
                  this, METHODID_LIST_TABLES)))
          .addMethod(
            getGetTableMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.GetTableRequest,
                stud.v1.GetTableResponse>(
                  this, METHODID_GET_TABLE)))
          .addMethod(
            getPauseTableMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.PauseTableRequest,
                stud.v1.PauseTableResponse>(
                  this, METHODID_PAUSE_TABLE)))
          .addMethod(
            getResumeTableMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.ResumeTableRequest,
                stud.v1.ResumeTableResponse>(
                  this, METHODID_RESUME_TABLE)))
          .addMethod(
            getCloseTableMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.CloseTableRequest,
                stud.v1.CloseTableResponse>(
                  this, METHODID_CLOSE_TABLE)))
          .addMethod(
            getCancelHandMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.CancelHandRequest,
                stud.v1.CancelHandResponse>(
                  this, METHODID_CANCEL_HAND)))
          .addMethod(
            getRemovePlayerMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.RemovePlayerRequest,
                stud.v1.RemovePlayerResponse>(
                  this, METHODID_REMOVE_PLAYER)))
          .addMethod(
            getRotateSeedMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.RotateSeedRequest,
                stud.v1.RotateSeedResponse>(
                  this, METHODID_ROTATE_SEED)))
          .addMethod(
            getDrainMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.DrainRequest,
                stud.v1.DrainResponse>(
                  this, METHODID_DRAIN)))
          .addMethod(
            getMoveTableMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.MoveTableRequest,
                stud.v1.MoveTableResponse>(
                  this, METHODID_MOVE_TABLE)))
          .addMethod(
            getListSeatSessionsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.ListSeatSessionsRequest,
                stud.v1.ListSeatSessionsResponse>(
                  this, METHODID_LIST_SEAT_SESSIONS)))
          .addMethod(
            getListNodesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.ListNodesRequest,
                stud.v1.ListNodesResponse>(
                  this, METHODID_LIST_NODES)))
          .addMethod(
            getSetStakesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.SetStakesRequest,
                stud.v1.SetStakesResponse>(
                  this, METHODID_SET_STAKES)))
          .addMethod(
            getMovePlayerMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.MovePlayerRequest,
                stud.v1.MovePlayerResponse>(
                  this, METHODID_MOVE_PLAYER)))
          .addMethod(
            getSetHandHoldMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.SetHandHoldRequest,
                stud.v1.SetHandHoldResponse>(
                  this, METHODID_SET_HAND_HOLD)))
          .addMethod(
            getSetTournamentInfoMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.SetTournamentInfoRequest,
                stud.v1.SetTournamentInfoResponse>(
                  this, METHODID_SET_TOURNAMENT_INFO)))
          .addMethod(
            getAwardPlaceMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                stud.v1.AwardPlaceRequest,
                stud.v1.AwardPlaceResponse>(
                  this, METHODID_AWARD_PLACE)))
          .build();
    }
  }

  /**
   * <pre>
   * AdminService is called by the lobby (to open tables and seat players) and by ops.
   * Authentication: `authorization: Bearer &lt;token&gt;`.
   * - The lobby's service token may call CreateTable, SeatPlayer, AddChips, ListTables,
   *   ListSeatSessions, RemovePlayer, RotateSeed and CloseTable, and the tournament director's
   *   methods: SetStakes, MovePlayer, SetHandHold, SetTournamentInfo and AwardPlace.
   * - Everything else (GetTable, PauseTable, ResumeTable, CancelHand, Drain) needs the admin
   *   token, which may also call every method above. Otherwise PERMISSION_DENIED /
   *   ADMIN_REQUIRED.
   * Errors: google.rpc.Status with one google.rpc.ErrorInfo, domain "stud.v1"; reasons in
   * stud.v1.ErrorReason (errors.proto). Methods on a table may fail with TABLE_NOT_FOUND
   * (NOT_FOUND) and INVALID_ARGUMENT for a malformed name; every method with
   * MESSAGE_TOO_LARGE (RESOURCE_EXHAUSTED).
   * Closed tables stay visible, also after an engine restart (no table runs for them then):
   * GetTable, ListTables (statuses CLOSED) and ListSeatSessions show them, and every method
   * answers on them as on any closed table (CloseTable again is harmless; SeatPlayer and
   * RotateSeed fail with TABLE_CLOSED, PauseTable and ResumeTable with TABLE_STATE; retries of
   * AddChips and RemovePlayer get their first answers).
   * Money: every RPC that moves chips into or out of a table is idempotent on an id the lobby
   * chose (request_id, seat_session_id): retrying it never moves chips twice, and a retry gets the
   * first answer whenever it comes (after later hands, the session's close, an engine restart).
   * Reusing an id with different parameters fails with INVALID_ARGUMENT /
   * IDEMPOTENCY_KEY_REUSED (metadata "field": the id's field, or the parameter that differs).
   * Tournaments (docs/tournaments.md, "Engine side"): the lobby's director opens each table with
   * CreateTableRequest.tournament, seats players with the chips it gives them (SeatPlayer), sets
   * each level's stakes (SetStakes), moves players between tables (MovePlayer, then SeatPlayer at
   * the destination with the chips MovePlayer answered), plays hand-for-hand (SetHandHold),
   * pushes what players see of the tournament (SetTournamentInfo, AwardPlace), and learns each
   * hand's end from the store it shares with the engine (hands, hand_players, seat sessions
   * closed BUSTED), without a stream. Tournament methods on a cash table fail with
   * FAILED_PRECONDITION / NOT_A_TOURNAMENT_TABLE.
   * </pre>
   */
  public static final class AdminServiceStub extends io.grpc.stub.AbstractAsyncStub<AdminServiceStub> {
    private AdminServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Opens a table. Idempotent by request_id: a retry returns the table the first call created.
     * Errors: UNKNOWN_PROFILE, INVALID_SETTING, INVALID_ARGUMENT (INVALID_ARGUMENT); DRAINING
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public void createTable(stud.v1.CreateTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.CreateTableResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateTableMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Seats a player whose buy-in the lobby has already moved to the table's escrow (at a
     * tournament table: with the tournament chips the director gives him, any positive amount;
     * between hands or during one, he is dealt in from the next hand). Idempotent by
     * seat_session_id. Errors: SEAT_TAKEN, TABLE_FULL, ALREADY_SEATED,
     * TABLE_CLOSED (FAILED_PRECONDITION); INVALID_SEAT, BUY_IN_OUT_OF_RANGE (INVALID_ARGUMENT).
     * </pre>
     */
    public void seatPlayer(stud.v1.SeatPlayerRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SeatPlayerResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSeatPlayerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Adds chips to a seated player's stack, between hands only (table stakes). Idempotent by
     * request_id: a retry gets the first answer (the session as that addition left it) and adds
     * nothing, even while a later hand runs or once the session has closed; the same request_id
     * with another seat_session_id or amount fails with IDEMPOTENCY_KEY_REUSED (field
     * "request_id"). Errors: HAND_IN_PROGRESS (he is dealt into the running hand: retry after it),
     * SEAT_SESSION_CLOSED, TABLE_CLOSED (FAILED_PRECONDITION); SEAT_SESSION_NOT_FOUND
     * (NOT_FOUND); BUY_IN_OUT_OF_RANGE (INVALID_ARGUMENT); TOURNAMENT_TABLE (FAILED_PRECONDITION:
     * no top-ups in a tournament).
     * </pre>
     */
    public void addChips(stud.v1.AddChipsRequest request,
        io.grpc.stub.StreamObserver<stud.v1.AddChipsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAddChipsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists tables, newest first, one page at a time.
     * </pre>
     */
    public void listTables(stud.v1.ListTablesRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ListTablesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListTablesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Ops' full view of a table with every card: every seat's down cards, folded ones
     * included. Every call is logged (caller, table, hand, reason). Any node answers for any
     * table of the room; a table another node serves comes as stored, with its placement and
     * no snapshot.
     * </pre>
     */
    public void getTable(stud.v1.GetTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.GetTableResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetTableMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Pauses a table: takes effect between hands (PAUSING while a hand runs, then PAUSED).
     * Errors: TABLE_STATE (already paused or closed).
     * </pre>
     */
    public void pauseTable(stud.v1.PauseTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.PauseTableResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPauseTableMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Resumes a paused (or pausing) table: hands are dealt again. Errors: TABLE_STATE.
     * </pre>
     */
    public void resumeTable(stud.v1.ResumeTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ResumeTableResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getResumeTableMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Closes a table: a running hand is finished first (status CLOSING), then every seat session
     * is closed and paid out and the dealer seed is revealed (CLOSED). Returns at once; the
     * sessions are final when the table is CLOSED (see ListSeatSessions). Calling it again is
     * harmless.
     * </pre>
     */
    public void closeTable(stud.v1.CloseTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.CloseTableResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCloseTableMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Cancels the running hand: every chip put in during it goes back to its owner, nothing is
     * won, and its nonce stays used. The hand's stored record keeps what was dealt and done before
     * the cancel for the audit: every card with its deck position, every action, the chips given
     * back, and its PHH (marked `_cancelled = true`). A hand that was running when the engine
     * died is cancelled when it restarts; its record keeps the deal it began with, rebuilt from
     * the seed pair and nonce (decisions are stored only when a hand ends, so those taken before
     * the crash are not known). Errors: NO_HAND_IN_PROGRESS, STALE_HAND (FAILED_PRECONDITION).
     * </pre>
     */
    public void cancelHand(stud.v1.CancelHandRequest request,
        io.grpc.stub.StreamObserver<stud.v1.CancelHandResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCancelHandMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes a player. Like Leave: between hands he is paid out at once; in a hand he is dealt
     * into, he plays it out (his clock acts for him) and is paid out when it ends. The session
     * closes as REMOVED, or as LEFT when the request relays the player's own leave (by_player).
     * Idempotent by seat_session_id: a retry with the same reason and by_player gets the first
     * answer (CLOSED, or CLOSING as it was then) and changes nothing, however late; another
     * reason or by_player fails with IDEMPOTENCY_KEY_REUSED (field "reason" or "by_player").
     * Errors: SEAT_SESSION_NOT_FOUND (NOT_FOUND: no open session with this id at this table,
     * e.g. he left by himself).
     * </pre>
     */
    public void removePlayer(stud.v1.RemovePlayerRequest request,
        io.grpc.stub.StreamObserver<stud.v1.RemovePlayerResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRemovePlayerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Rotates the table's seed pair between hands: reveals the current dealer seed (every hand it
     * dealt can now be checked), switches to the next seed (whose commitment was shown) and
     * commits to a new next one. Errors: HAND_IN_PROGRESS (FAILED_PRECONDITION).
     * </pre>
     */
    public void rotateSeed(stud.v1.RotateSeedRequest request,
        io.grpc.stub.StreamObserver<stud.v1.RotateSeedResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRotateSeedMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Drains this engine node: no new table opens and no new hand starts on it; running hands are
     * finished. Returns once every hand has ended (set a deadline on the call to bound the wait;
     * calling it again continues waiting). Tables stay open, paused, and can be taken over by
     * another node. Each open table shows it at once (GetTable, ListTables, and a
     * TableStatusChanged on its streams): PAUSING while its hand plays out, then PAUSED.
     * The status is stored as shown (ListTables' `statuses` filter matches it) and the pause
     * outlasts a restart: the node that loads the table next (this one restarted, or another)
     * deals nothing there until ResumeTable. (The drain of a node stopping on SIGTERM is not
     * Drain: the next start deals again.) ResumeTable on a drained node fails with DRAINING.
     * </pre>
     */
    public void drain(stud.v1.DrainRequest request,
        io.grpc.stub.StreamObserver<stud.v1.DrainResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDrainMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves one table of this node to another live node, between hands: no new hand starts on
     * it, the running hand (if any) plays out, then the table is handed over in the shared
     * database (its fencing number moves on: this node can write nothing more to it) and the
     * node there loads it within a sixth of its lease; its players keep their seats and their
     * stacks, a paused table stays paused, a playing one deals on there. The table's streams end
     * with UNAVAILABLE / TABLE_MOVED, ErrorInfo metadata "node", "grpc_address" and "web_url"
     * naming the new node; calls for it here get the same refusal. Returns once handed over.
     * Idempotent: a retry once the table is on `node` answers the same and changes nothing.
     * Errors: TABLE_ON_OTHER_NODE (another node serves it), TABLE_CLOSED, INVALID_ARGUMENT
     * (field "node": this node, a node that is not live, or none given and no other is live).
     * </pre>
     */
    public void moveTable(stud.v1.MoveTableRequest request,
        io.grpc.stub.StreamObserver<stud.v1.MoveTableResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getMoveTableMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists seat sessions (e.g. closed ones the lobby has yet to settle), oldest first.
     * </pre>
     */
    public void listSeatSessions(stud.v1.ListSeatSessionsRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ListSeatSessionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListSeatSessionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists the engine nodes of the registry this node shares with the others (every node on
     * the same database), by id: where each is reached, its state and lease, and its open
     * tables. Any node answers for all of them.
     * </pre>
     */
    public void listNodes(stud.v1.ListNodesRequest request,
        io.grpc.stub.StreamObserver<stud.v1.ListNodesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListNodesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Tournament table: sets the stakes of a level, from the next hand on (never the running
     * one): between hands at once, during a hand when it ends (TournamentState.next_level and
     * next_stakes show it until then). Every stream gets StakesChanged; TableSettings.stakes and
     * TournamentState.level show the level once it plays. The stakes are stored with the table:
     * a restarted engine deals the next hand at them. Idempotent: setting the level and stakes
     * the table already has (or will have from the next hand) changes nothing and sends nothing.
     * Errors: INVALID_ARGUMENT (level &lt; 1, or stakes as CreateTable refuses them);
     * NOT_A_TOURNAMENT_TABLE, TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public void setStakes(stud.v1.SetStakesRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SetStakesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetStakesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Tournament table: takes a player off the table for a seat elsewhere (balancing, breaking).
     * Between hands, or when he is not dealt into the running hand, at once; else when the hand
     * ends (session CLOSING until then; his clock acts for him meanwhile). His session closes
     * MOVED with his chips (`stack`): the director seats him at `destination_table` with exactly
     * these chips (SeatPlayer there, a new seat_session_id). A player whose last chip goes in
     * that hand busts instead (BUSTED, stack 0): nothing to seat. His stream gets PlayerMoved
     * with the destination and its engine addresses (as everyone's does), then ends cleanly.
     * Idempotent by request_id: a retry gets the session as it is now (CLOSING while he plays
     * out the hand, then CLOSED with the chips) whenever it comes, and moves nothing again (the
     * director may poll with it until CLOSED); the same request_id for
     * another session or destination, or a second move of the same session under another
     * request_id, fails with IDEMPOTENCY_KEY_REUSED (field "request_id"). Errors:
     * SEAT_SESSION_NOT_FOUND (NOT_FOUND); NOT_A_TOURNAMENT_TABLE (FAILED_PRECONDITION).
     * </pre>
     */
    public void movePlayer(stud.v1.MovePlayerRequest request,
        io.grpc.stub.StreamObserver<stud.v1.MovePlayerResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getMovePlayerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Tournament table, hand-for-hand: `held` true holds the next hand (the running one plays
     * out; no new hand starts until released), false releases it (the next hand starts at once
     * when at least two players can play). Idempotent: holding a held table or releasing a free
     * one changes nothing. Stored with the table (a restart keeps the hold); every stream gets
     * HandHoldChanged and TournamentState.hand_held shows it. The answer's Table says whether a
     * hand still runs (hand_in_progress): the director releases every table of the tournament
     * together once none of them has a hand running. Errors: NOT_A_TOURNAMENT_TABLE,
     * TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public void setHandHold(stud.v1.SetHandHoldRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SetHandHoldResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetHandHoldMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Tournament table: pushes the tournament's state (level, time or hands to the next level,
     * players left, average stack, entrants, prize pool) to every stream of the table
     * (TournamentInfoChanged; TournamentState.info in every view). Shown as given (the engine
     * computes none of it); stored with the table. Pushing the same info again sends nothing.
     * Errors: INVALID_ARGUMENT (a negative count); NOT_A_TOURNAMENT_TABLE, TABLE_CLOSED
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public void setTournamentInfo(stud.v1.SetTournamentInfoRequest request,
        io.grpc.stub.StreamObserver<stud.v1.SetTournamentInfoResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetTournamentInfoMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Tournament table: tells a player his final place and prize, when he busts (at the table he
     * busted at: his stream stays open as a railbird's for it) or wins. Every stream of the table
     * gets TournamentPlaced. Idempotent by player: the same place and prize again sends nothing;
     * another place or prize for him fails with IDEMPOTENCY_KEY_REUSED (field "player_id").
     * Errors: INVALID_ARGUMENT (place &lt; 1, prize &lt; 0); NOT_A_TOURNAMENT_TABLE,
     * TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public void awardPlace(stud.v1.AwardPlaceRequest request,
        io.grpc.stub.StreamObserver<stud.v1.AwardPlaceResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAwardPlaceMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * AdminService is called by the lobby (to open tables and seat players) and by ops.
   * Authentication: `authorization: Bearer &lt;token&gt;`.
   * - The lobby's service token may call CreateTable, SeatPlayer, AddChips, ListTables,
   *   ListSeatSessions, RemovePlayer, RotateSeed and CloseTable, and the tournament director's
   *   methods: SetStakes, MovePlayer, SetHandHold, SetTournamentInfo and AwardPlace.
   * - Everything else (GetTable, PauseTable, ResumeTable, CancelHand, Drain) needs the admin
   *   token, which may also call every method above. Otherwise PERMISSION_DENIED /
   *   ADMIN_REQUIRED.
   * Errors: google.rpc.Status with one google.rpc.ErrorInfo, domain "stud.v1"; reasons in
   * stud.v1.ErrorReason (errors.proto). Methods on a table may fail with TABLE_NOT_FOUND
   * (NOT_FOUND) and INVALID_ARGUMENT for a malformed name; every method with
   * MESSAGE_TOO_LARGE (RESOURCE_EXHAUSTED).
   * Closed tables stay visible, also after an engine restart (no table runs for them then):
   * GetTable, ListTables (statuses CLOSED) and ListSeatSessions show them, and every method
   * answers on them as on any closed table (CloseTable again is harmless; SeatPlayer and
   * RotateSeed fail with TABLE_CLOSED, PauseTable and ResumeTable with TABLE_STATE; retries of
   * AddChips and RemovePlayer get their first answers).
   * Money: every RPC that moves chips into or out of a table is idempotent on an id the lobby
   * chose (request_id, seat_session_id): retrying it never moves chips twice, and a retry gets the
   * first answer whenever it comes (after later hands, the session's close, an engine restart).
   * Reusing an id with different parameters fails with INVALID_ARGUMENT /
   * IDEMPOTENCY_KEY_REUSED (metadata "field": the id's field, or the parameter that differs).
   * Tournaments (docs/tournaments.md, "Engine side"): the lobby's director opens each table with
   * CreateTableRequest.tournament, seats players with the chips it gives them (SeatPlayer), sets
   * each level's stakes (SetStakes), moves players between tables (MovePlayer, then SeatPlayer at
   * the destination with the chips MovePlayer answered), plays hand-for-hand (SetHandHold),
   * pushes what players see of the tournament (SetTournamentInfo, AwardPlace), and learns each
   * hand's end from the store it shares with the engine (hands, hand_players, seat sessions
   * closed BUSTED), without a stream. Tournament methods on a cash table fail with
   * FAILED_PRECONDITION / NOT_A_TOURNAMENT_TABLE.
   * </pre>
   */
  public static final class AdminServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<AdminServiceBlockingStub> {
    private AdminServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Opens a table. Idempotent by request_id: a retry returns the table the first call created.
     * Errors: UNKNOWN_PROFILE, INVALID_SETTING, INVALID_ARGUMENT (INVALID_ARGUMENT); DRAINING
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public stud.v1.CreateTableResponse createTable(stud.v1.CreateTableRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateTableMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Seats a player whose buy-in the lobby has already moved to the table's escrow (at a
     * tournament table: with the tournament chips the director gives him, any positive amount;
     * between hands or during one, he is dealt in from the next hand). Idempotent by
     * seat_session_id. Errors: SEAT_TAKEN, TABLE_FULL, ALREADY_SEATED,
     * TABLE_CLOSED (FAILED_PRECONDITION); INVALID_SEAT, BUY_IN_OUT_OF_RANGE (INVALID_ARGUMENT).
     * </pre>
     */
    public stud.v1.SeatPlayerResponse seatPlayer(stud.v1.SeatPlayerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSeatPlayerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds chips to a seated player's stack, between hands only (table stakes). Idempotent by
     * request_id: a retry gets the first answer (the session as that addition left it) and adds
     * nothing, even while a later hand runs or once the session has closed; the same request_id
     * with another seat_session_id or amount fails with IDEMPOTENCY_KEY_REUSED (field
     * "request_id"). Errors: HAND_IN_PROGRESS (he is dealt into the running hand: retry after it),
     * SEAT_SESSION_CLOSED, TABLE_CLOSED (FAILED_PRECONDITION); SEAT_SESSION_NOT_FOUND
     * (NOT_FOUND); BUY_IN_OUT_OF_RANGE (INVALID_ARGUMENT); TOURNAMENT_TABLE (FAILED_PRECONDITION:
     * no top-ups in a tournament).
     * </pre>
     */
    public stud.v1.AddChipsResponse addChips(stud.v1.AddChipsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAddChipsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists tables, newest first, one page at a time.
     * </pre>
     */
    public stud.v1.ListTablesResponse listTables(stud.v1.ListTablesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListTablesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Ops' full view of a table with every card: every seat's down cards, folded ones
     * included. Every call is logged (caller, table, hand, reason). Any node answers for any
     * table of the room; a table another node serves comes as stored, with its placement and
     * no snapshot.
     * </pre>
     */
    public stud.v1.GetTableResponse getTable(stud.v1.GetTableRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetTableMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Pauses a table: takes effect between hands (PAUSING while a hand runs, then PAUSED).
     * Errors: TABLE_STATE (already paused or closed).
     * </pre>
     */
    public stud.v1.PauseTableResponse pauseTable(stud.v1.PauseTableRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPauseTableMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Resumes a paused (or pausing) table: hands are dealt again. Errors: TABLE_STATE.
     * </pre>
     */
    public stud.v1.ResumeTableResponse resumeTable(stud.v1.ResumeTableRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getResumeTableMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Closes a table: a running hand is finished first (status CLOSING), then every seat session
     * is closed and paid out and the dealer seed is revealed (CLOSED). Returns at once; the
     * sessions are final when the table is CLOSED (see ListSeatSessions). Calling it again is
     * harmless.
     * </pre>
     */
    public stud.v1.CloseTableResponse closeTable(stud.v1.CloseTableRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCloseTableMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Cancels the running hand: every chip put in during it goes back to its owner, nothing is
     * won, and its nonce stays used. The hand's stored record keeps what was dealt and done before
     * the cancel for the audit: every card with its deck position, every action, the chips given
     * back, and its PHH (marked `_cancelled = true`). A hand that was running when the engine
     * died is cancelled when it restarts; its record keeps the deal it began with, rebuilt from
     * the seed pair and nonce (decisions are stored only when a hand ends, so those taken before
     * the crash are not known). Errors: NO_HAND_IN_PROGRESS, STALE_HAND (FAILED_PRECONDITION).
     * </pre>
     */
    public stud.v1.CancelHandResponse cancelHand(stud.v1.CancelHandRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCancelHandMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a player. Like Leave: between hands he is paid out at once; in a hand he is dealt
     * into, he plays it out (his clock acts for him) and is paid out when it ends. The session
     * closes as REMOVED, or as LEFT when the request relays the player's own leave (by_player).
     * Idempotent by seat_session_id: a retry with the same reason and by_player gets the first
     * answer (CLOSED, or CLOSING as it was then) and changes nothing, however late; another
     * reason or by_player fails with IDEMPOTENCY_KEY_REUSED (field "reason" or "by_player").
     * Errors: SEAT_SESSION_NOT_FOUND (NOT_FOUND: no open session with this id at this table,
     * e.g. he left by himself).
     * </pre>
     */
    public stud.v1.RemovePlayerResponse removePlayer(stud.v1.RemovePlayerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRemovePlayerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Rotates the table's seed pair between hands: reveals the current dealer seed (every hand it
     * dealt can now be checked), switches to the next seed (whose commitment was shown) and
     * commits to a new next one. Errors: HAND_IN_PROGRESS (FAILED_PRECONDITION).
     * </pre>
     */
    public stud.v1.RotateSeedResponse rotateSeed(stud.v1.RotateSeedRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRotateSeedMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Drains this engine node: no new table opens and no new hand starts on it; running hands are
     * finished. Returns once every hand has ended (set a deadline on the call to bound the wait;
     * calling it again continues waiting). Tables stay open, paused, and can be taken over by
     * another node. Each open table shows it at once (GetTable, ListTables, and a
     * TableStatusChanged on its streams): PAUSING while its hand plays out, then PAUSED.
     * The status is stored as shown (ListTables' `statuses` filter matches it) and the pause
     * outlasts a restart: the node that loads the table next (this one restarted, or another)
     * deals nothing there until ResumeTable. (The drain of a node stopping on SIGTERM is not
     * Drain: the next start deals again.) ResumeTable on a drained node fails with DRAINING.
     * </pre>
     */
    public stud.v1.DrainResponse drain(stud.v1.DrainRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDrainMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves one table of this node to another live node, between hands: no new hand starts on
     * it, the running hand (if any) plays out, then the table is handed over in the shared
     * database (its fencing number moves on: this node can write nothing more to it) and the
     * node there loads it within a sixth of its lease; its players keep their seats and their
     * stacks, a paused table stays paused, a playing one deals on there. The table's streams end
     * with UNAVAILABLE / TABLE_MOVED, ErrorInfo metadata "node", "grpc_address" and "web_url"
     * naming the new node; calls for it here get the same refusal. Returns once handed over.
     * Idempotent: a retry once the table is on `node` answers the same and changes nothing.
     * Errors: TABLE_ON_OTHER_NODE (another node serves it), TABLE_CLOSED, INVALID_ARGUMENT
     * (field "node": this node, a node that is not live, or none given and no other is live).
     * </pre>
     */
    public stud.v1.MoveTableResponse moveTable(stud.v1.MoveTableRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getMoveTableMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists seat sessions (e.g. closed ones the lobby has yet to settle), oldest first.
     * </pre>
     */
    public stud.v1.ListSeatSessionsResponse listSeatSessions(stud.v1.ListSeatSessionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListSeatSessionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the engine nodes of the registry this node shares with the others (every node on
     * the same database), by id: where each is reached, its state and lease, and its open
     * tables. Any node answers for all of them.
     * </pre>
     */
    public stud.v1.ListNodesResponse listNodes(stud.v1.ListNodesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListNodesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Tournament table: sets the stakes of a level, from the next hand on (never the running
     * one): between hands at once, during a hand when it ends (TournamentState.next_level and
     * next_stakes show it until then). Every stream gets StakesChanged; TableSettings.stakes and
     * TournamentState.level show the level once it plays. The stakes are stored with the table:
     * a restarted engine deals the next hand at them. Idempotent: setting the level and stakes
     * the table already has (or will have from the next hand) changes nothing and sends nothing.
     * Errors: INVALID_ARGUMENT (level &lt; 1, or stakes as CreateTable refuses them);
     * NOT_A_TOURNAMENT_TABLE, TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public stud.v1.SetStakesResponse setStakes(stud.v1.SetStakesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetStakesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Tournament table: takes a player off the table for a seat elsewhere (balancing, breaking).
     * Between hands, or when he is not dealt into the running hand, at once; else when the hand
     * ends (session CLOSING until then; his clock acts for him meanwhile). His session closes
     * MOVED with his chips (`stack`): the director seats him at `destination_table` with exactly
     * these chips (SeatPlayer there, a new seat_session_id). A player whose last chip goes in
     * that hand busts instead (BUSTED, stack 0): nothing to seat. His stream gets PlayerMoved
     * with the destination and its engine addresses (as everyone's does), then ends cleanly.
     * Idempotent by request_id: a retry gets the session as it is now (CLOSING while he plays
     * out the hand, then CLOSED with the chips) whenever it comes, and moves nothing again (the
     * director may poll with it until CLOSED); the same request_id for
     * another session or destination, or a second move of the same session under another
     * request_id, fails with IDEMPOTENCY_KEY_REUSED (field "request_id"). Errors:
     * SEAT_SESSION_NOT_FOUND (NOT_FOUND); NOT_A_TOURNAMENT_TABLE (FAILED_PRECONDITION).
     * </pre>
     */
    public stud.v1.MovePlayerResponse movePlayer(stud.v1.MovePlayerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getMovePlayerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Tournament table, hand-for-hand: `held` true holds the next hand (the running one plays
     * out; no new hand starts until released), false releases it (the next hand starts at once
     * when at least two players can play). Idempotent: holding a held table or releasing a free
     * one changes nothing. Stored with the table (a restart keeps the hold); every stream gets
     * HandHoldChanged and TournamentState.hand_held shows it. The answer's Table says whether a
     * hand still runs (hand_in_progress): the director releases every table of the tournament
     * together once none of them has a hand running. Errors: NOT_A_TOURNAMENT_TABLE,
     * TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public stud.v1.SetHandHoldResponse setHandHold(stud.v1.SetHandHoldRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetHandHoldMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Tournament table: pushes the tournament's state (level, time or hands to the next level,
     * players left, average stack, entrants, prize pool) to every stream of the table
     * (TournamentInfoChanged; TournamentState.info in every view). Shown as given (the engine
     * computes none of it); stored with the table. Pushing the same info again sends nothing.
     * Errors: INVALID_ARGUMENT (a negative count); NOT_A_TOURNAMENT_TABLE, TABLE_CLOSED
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public stud.v1.SetTournamentInfoResponse setTournamentInfo(stud.v1.SetTournamentInfoRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetTournamentInfoMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Tournament table: tells a player his final place and prize, when he busts (at the table he
     * busted at: his stream stays open as a railbird's for it) or wins. Every stream of the table
     * gets TournamentPlaced. Idempotent by player: the same place and prize again sends nothing;
     * another place or prize for him fails with IDEMPOTENCY_KEY_REUSED (field "player_id").
     * Errors: INVALID_ARGUMENT (place &lt; 1, prize &lt; 0); NOT_A_TOURNAMENT_TABLE,
     * TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public stud.v1.AwardPlaceResponse awardPlace(stud.v1.AwardPlaceRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAwardPlaceMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * AdminService is called by the lobby (to open tables and seat players) and by ops.
   * Authentication: `authorization: Bearer &lt;token&gt;`.
   * - The lobby's service token may call CreateTable, SeatPlayer, AddChips, ListTables,
   *   ListSeatSessions, RemovePlayer, RotateSeed and CloseTable, and the tournament director's
   *   methods: SetStakes, MovePlayer, SetHandHold, SetTournamentInfo and AwardPlace.
   * - Everything else (GetTable, PauseTable, ResumeTable, CancelHand, Drain) needs the admin
   *   token, which may also call every method above. Otherwise PERMISSION_DENIED /
   *   ADMIN_REQUIRED.
   * Errors: google.rpc.Status with one google.rpc.ErrorInfo, domain "stud.v1"; reasons in
   * stud.v1.ErrorReason (errors.proto). Methods on a table may fail with TABLE_NOT_FOUND
   * (NOT_FOUND) and INVALID_ARGUMENT for a malformed name; every method with
   * MESSAGE_TOO_LARGE (RESOURCE_EXHAUSTED).
   * Closed tables stay visible, also after an engine restart (no table runs for them then):
   * GetTable, ListTables (statuses CLOSED) and ListSeatSessions show them, and every method
   * answers on them as on any closed table (CloseTable again is harmless; SeatPlayer and
   * RotateSeed fail with TABLE_CLOSED, PauseTable and ResumeTable with TABLE_STATE; retries of
   * AddChips and RemovePlayer get their first answers).
   * Money: every RPC that moves chips into or out of a table is idempotent on an id the lobby
   * chose (request_id, seat_session_id): retrying it never moves chips twice, and a retry gets the
   * first answer whenever it comes (after later hands, the session's close, an engine restart).
   * Reusing an id with different parameters fails with INVALID_ARGUMENT /
   * IDEMPOTENCY_KEY_REUSED (metadata "field": the id's field, or the parameter that differs).
   * Tournaments (docs/tournaments.md, "Engine side"): the lobby's director opens each table with
   * CreateTableRequest.tournament, seats players with the chips it gives them (SeatPlayer), sets
   * each level's stakes (SetStakes), moves players between tables (MovePlayer, then SeatPlayer at
   * the destination with the chips MovePlayer answered), plays hand-for-hand (SetHandHold),
   * pushes what players see of the tournament (SetTournamentInfo, AwardPlace), and learns each
   * hand's end from the store it shares with the engine (hands, hand_players, seat sessions
   * closed BUSTED), without a stream. Tournament methods on a cash table fail with
   * FAILED_PRECONDITION / NOT_A_TOURNAMENT_TABLE.
   * </pre>
   */
  public static final class AdminServiceFutureStub extends io.grpc.stub.AbstractFutureStub<AdminServiceFutureStub> {
    private AdminServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Opens a table. Idempotent by request_id: a retry returns the table the first call created.
     * Errors: UNKNOWN_PROFILE, INVALID_SETTING, INVALID_ARGUMENT (INVALID_ARGUMENT); DRAINING
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.CreateTableResponse> createTable(
        stud.v1.CreateTableRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateTableMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Seats a player whose buy-in the lobby has already moved to the table's escrow (at a
     * tournament table: with the tournament chips the director gives him, any positive amount;
     * between hands or during one, he is dealt in from the next hand). Idempotent by
     * seat_session_id. Errors: SEAT_TAKEN, TABLE_FULL, ALREADY_SEATED,
     * TABLE_CLOSED (FAILED_PRECONDITION); INVALID_SEAT, BUY_IN_OUT_OF_RANGE (INVALID_ARGUMENT).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.SeatPlayerResponse> seatPlayer(
        stud.v1.SeatPlayerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSeatPlayerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Adds chips to a seated player's stack, between hands only (table stakes). Idempotent by
     * request_id: a retry gets the first answer (the session as that addition left it) and adds
     * nothing, even while a later hand runs or once the session has closed; the same request_id
     * with another seat_session_id or amount fails with IDEMPOTENCY_KEY_REUSED (field
     * "request_id"). Errors: HAND_IN_PROGRESS (he is dealt into the running hand: retry after it),
     * SEAT_SESSION_CLOSED, TABLE_CLOSED (FAILED_PRECONDITION); SEAT_SESSION_NOT_FOUND
     * (NOT_FOUND); BUY_IN_OUT_OF_RANGE (INVALID_ARGUMENT); TOURNAMENT_TABLE (FAILED_PRECONDITION:
     * no top-ups in a tournament).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.AddChipsResponse> addChips(
        stud.v1.AddChipsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAddChipsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists tables, newest first, one page at a time.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.ListTablesResponse> listTables(
        stud.v1.ListTablesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListTablesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Ops' full view of a table with every card: every seat's down cards, folded ones
     * included. Every call is logged (caller, table, hand, reason). Any node answers for any
     * table of the room; a table another node serves comes as stored, with its placement and
     * no snapshot.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.GetTableResponse> getTable(
        stud.v1.GetTableRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetTableMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Pauses a table: takes effect between hands (PAUSING while a hand runs, then PAUSED).
     * Errors: TABLE_STATE (already paused or closed).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.PauseTableResponse> pauseTable(
        stud.v1.PauseTableRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPauseTableMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Resumes a paused (or pausing) table: hands are dealt again. Errors: TABLE_STATE.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.ResumeTableResponse> resumeTable(
        stud.v1.ResumeTableRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getResumeTableMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Closes a table: a running hand is finished first (status CLOSING), then every seat session
     * is closed and paid out and the dealer seed is revealed (CLOSED). Returns at once; the
     * sessions are final when the table is CLOSED (see ListSeatSessions). Calling it again is
     * harmless.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.CloseTableResponse> closeTable(
        stud.v1.CloseTableRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCloseTableMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Cancels the running hand: every chip put in during it goes back to its owner, nothing is
     * won, and its nonce stays used. The hand's stored record keeps what was dealt and done before
     * the cancel for the audit: every card with its deck position, every action, the chips given
     * back, and its PHH (marked `_cancelled = true`). A hand that was running when the engine
     * died is cancelled when it restarts; its record keeps the deal it began with, rebuilt from
     * the seed pair and nonce (decisions are stored only when a hand ends, so those taken before
     * the crash are not known). Errors: NO_HAND_IN_PROGRESS, STALE_HAND (FAILED_PRECONDITION).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.CancelHandResponse> cancelHand(
        stud.v1.CancelHandRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCancelHandMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes a player. Like Leave: between hands he is paid out at once; in a hand he is dealt
     * into, he plays it out (his clock acts for him) and is paid out when it ends. The session
     * closes as REMOVED, or as LEFT when the request relays the player's own leave (by_player).
     * Idempotent by seat_session_id: a retry with the same reason and by_player gets the first
     * answer (CLOSED, or CLOSING as it was then) and changes nothing, however late; another
     * reason or by_player fails with IDEMPOTENCY_KEY_REUSED (field "reason" or "by_player").
     * Errors: SEAT_SESSION_NOT_FOUND (NOT_FOUND: no open session with this id at this table,
     * e.g. he left by himself).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.RemovePlayerResponse> removePlayer(
        stud.v1.RemovePlayerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRemovePlayerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Rotates the table's seed pair between hands: reveals the current dealer seed (every hand it
     * dealt can now be checked), switches to the next seed (whose commitment was shown) and
     * commits to a new next one. Errors: HAND_IN_PROGRESS (FAILED_PRECONDITION).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.RotateSeedResponse> rotateSeed(
        stud.v1.RotateSeedRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRotateSeedMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Drains this engine node: no new table opens and no new hand starts on it; running hands are
     * finished. Returns once every hand has ended (set a deadline on the call to bound the wait;
     * calling it again continues waiting). Tables stay open, paused, and can be taken over by
     * another node. Each open table shows it at once (GetTable, ListTables, and a
     * TableStatusChanged on its streams): PAUSING while its hand plays out, then PAUSED.
     * The status is stored as shown (ListTables' `statuses` filter matches it) and the pause
     * outlasts a restart: the node that loads the table next (this one restarted, or another)
     * deals nothing there until ResumeTable. (The drain of a node stopping on SIGTERM is not
     * Drain: the next start deals again.) ResumeTable on a drained node fails with DRAINING.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.DrainResponse> drain(
        stud.v1.DrainRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDrainMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves one table of this node to another live node, between hands: no new hand starts on
     * it, the running hand (if any) plays out, then the table is handed over in the shared
     * database (its fencing number moves on: this node can write nothing more to it) and the
     * node there loads it within a sixth of its lease; its players keep their seats and their
     * stacks, a paused table stays paused, a playing one deals on there. The table's streams end
     * with UNAVAILABLE / TABLE_MOVED, ErrorInfo metadata "node", "grpc_address" and "web_url"
     * naming the new node; calls for it here get the same refusal. Returns once handed over.
     * Idempotent: a retry once the table is on `node` answers the same and changes nothing.
     * Errors: TABLE_ON_OTHER_NODE (another node serves it), TABLE_CLOSED, INVALID_ARGUMENT
     * (field "node": this node, a node that is not live, or none given and no other is live).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.MoveTableResponse> moveTable(
        stud.v1.MoveTableRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getMoveTableMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists seat sessions (e.g. closed ones the lobby has yet to settle), oldest first.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.ListSeatSessionsResponse> listSeatSessions(
        stud.v1.ListSeatSessionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListSeatSessionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists the engine nodes of the registry this node shares with the others (every node on
     * the same database), by id: where each is reached, its state and lease, and its open
     * tables. Any node answers for all of them.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.ListNodesResponse> listNodes(
        stud.v1.ListNodesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListNodesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Tournament table: sets the stakes of a level, from the next hand on (never the running
     * one): between hands at once, during a hand when it ends (TournamentState.next_level and
     * next_stakes show it until then). Every stream gets StakesChanged; TableSettings.stakes and
     * TournamentState.level show the level once it plays. The stakes are stored with the table:
     * a restarted engine deals the next hand at them. Idempotent: setting the level and stakes
     * the table already has (or will have from the next hand) changes nothing and sends nothing.
     * Errors: INVALID_ARGUMENT (level &lt; 1, or stakes as CreateTable refuses them);
     * NOT_A_TOURNAMENT_TABLE, TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.SetStakesResponse> setStakes(
        stud.v1.SetStakesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetStakesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Tournament table: takes a player off the table for a seat elsewhere (balancing, breaking).
     * Between hands, or when he is not dealt into the running hand, at once; else when the hand
     * ends (session CLOSING until then; his clock acts for him meanwhile). His session closes
     * MOVED with his chips (`stack`): the director seats him at `destination_table` with exactly
     * these chips (SeatPlayer there, a new seat_session_id). A player whose last chip goes in
     * that hand busts instead (BUSTED, stack 0): nothing to seat. His stream gets PlayerMoved
     * with the destination and its engine addresses (as everyone's does), then ends cleanly.
     * Idempotent by request_id: a retry gets the session as it is now (CLOSING while he plays
     * out the hand, then CLOSED with the chips) whenever it comes, and moves nothing again (the
     * director may poll with it until CLOSED); the same request_id for
     * another session or destination, or a second move of the same session under another
     * request_id, fails with IDEMPOTENCY_KEY_REUSED (field "request_id"). Errors:
     * SEAT_SESSION_NOT_FOUND (NOT_FOUND); NOT_A_TOURNAMENT_TABLE (FAILED_PRECONDITION).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.MovePlayerResponse> movePlayer(
        stud.v1.MovePlayerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getMovePlayerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Tournament table, hand-for-hand: `held` true holds the next hand (the running one plays
     * out; no new hand starts until released), false releases it (the next hand starts at once
     * when at least two players can play). Idempotent: holding a held table or releasing a free
     * one changes nothing. Stored with the table (a restart keeps the hold); every stream gets
     * HandHoldChanged and TournamentState.hand_held shows it. The answer's Table says whether a
     * hand still runs (hand_in_progress): the director releases every table of the tournament
     * together once none of them has a hand running. Errors: NOT_A_TOURNAMENT_TABLE,
     * TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.SetHandHoldResponse> setHandHold(
        stud.v1.SetHandHoldRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetHandHoldMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Tournament table: pushes the tournament's state (level, time or hands to the next level,
     * players left, average stack, entrants, prize pool) to every stream of the table
     * (TournamentInfoChanged; TournamentState.info in every view). Shown as given (the engine
     * computes none of it); stored with the table. Pushing the same info again sends nothing.
     * Errors: INVALID_ARGUMENT (a negative count); NOT_A_TOURNAMENT_TABLE, TABLE_CLOSED
     * (FAILED_PRECONDITION).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.SetTournamentInfoResponse> setTournamentInfo(
        stud.v1.SetTournamentInfoRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetTournamentInfoMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Tournament table: tells a player his final place and prize, when he busts (at the table he
     * busted at: his stream stays open as a railbird's for it) or wins. Every stream of the table
     * gets TournamentPlaced. Idempotent by player: the same place and prize again sends nothing;
     * another place or prize for him fails with IDEMPOTENCY_KEY_REUSED (field "player_id").
     * Errors: INVALID_ARGUMENT (place &lt; 1, prize &lt; 0); NOT_A_TOURNAMENT_TABLE,
     * TABLE_CLOSED (FAILED_PRECONDITION).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<stud.v1.AwardPlaceResponse> awardPlace(
        stud.v1.AwardPlaceRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAwardPlaceMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_TABLE = 0;
  private static final int METHODID_SEAT_PLAYER = 1;
  private static final int METHODID_ADD_CHIPS = 2;
  private static final int METHODID_LIST_TABLES = 3;
  private static final int METHODID_GET_TABLE = 4;
  private static final int METHODID_PAUSE_TABLE = 5;
  private static final int METHODID_RESUME_TABLE = 6;
  private static final int METHODID_CLOSE_TABLE = 7;
  private static final int METHODID_CANCEL_HAND = 8;
  private static final int METHODID_REMOVE_PLAYER = 9;
  private static final int METHODID_ROTATE_SEED = 10;
  private static final int METHODID_DRAIN = 11;
  private static final int METHODID_MOVE_TABLE = 12;
  private static final int METHODID_LIST_SEAT_SESSIONS = 13;
  private static final int METHODID_LIST_NODES = 14;
  private static final int METHODID_SET_STAKES = 15;
  private static final int METHODID_MOVE_PLAYER = 16;
  private static final int METHODID_SET_HAND_HOLD = 17;
  private static final int METHODID_SET_TOURNAMENT_INFO = 18;
  private static final int METHODID_AWARD_PLACE = 19;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AdminServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(AdminServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_CREATE_TABLE:
          serviceImpl.createTable((stud.v1.CreateTableRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.CreateTableResponse>) responseObserver);
          break;
        case METHODID_SEAT_PLAYER:
          serviceImpl.seatPlayer((stud.v1.SeatPlayerRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.SeatPlayerResponse>) responseObserver);
          break;
        case METHODID_ADD_CHIPS:
          serviceImpl.addChips((stud.v1.AddChipsRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.AddChipsResponse>) responseObserver);
          break;
        case METHODID_LIST_TABLES:
          serviceImpl.listTables((stud.v1.ListTablesRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.ListTablesResponse>) responseObserver);
          break;
        case METHODID_GET_TABLE:
          serviceImpl.getTable((stud.v1.GetTableRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.GetTableResponse>) responseObserver);
          break;
        case METHODID_PAUSE_TABLE:
          serviceImpl.pauseTable((stud.v1.PauseTableRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.PauseTableResponse>) responseObserver);
          break;
        case METHODID_RESUME_TABLE:
          serviceImpl.resumeTable((stud.v1.ResumeTableRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.ResumeTableResponse>) responseObserver);
          break;
        case METHODID_CLOSE_TABLE:
          serviceImpl.closeTable((stud.v1.CloseTableRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.CloseTableResponse>) responseObserver);
          break;
        case METHODID_CANCEL_HAND:
          serviceImpl.cancelHand((stud.v1.CancelHandRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.CancelHandResponse>) responseObserver);
          break;
        case METHODID_REMOVE_PLAYER:
          serviceImpl.removePlayer((stud.v1.RemovePlayerRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.RemovePlayerResponse>) responseObserver);
          break;
        case METHODID_ROTATE_SEED:
          serviceImpl.rotateSeed((stud.v1.RotateSeedRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.RotateSeedResponse>) responseObserver);
          break;
        case METHODID_DRAIN:
          serviceImpl.drain((stud.v1.DrainRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.DrainResponse>) responseObserver);
          break;
        case METHODID_MOVE_TABLE:
          serviceImpl.moveTable((stud.v1.MoveTableRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.MoveTableResponse>) responseObserver);
          break;
        case METHODID_LIST_SEAT_SESSIONS:
          serviceImpl.listSeatSessions((stud.v1.ListSeatSessionsRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.ListSeatSessionsResponse>) responseObserver);
          break;
        case METHODID_LIST_NODES:
          serviceImpl.listNodes((stud.v1.ListNodesRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.ListNodesResponse>) responseObserver);
          break;
        case METHODID_SET_STAKES:
          serviceImpl.setStakes((stud.v1.SetStakesRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.SetStakesResponse>) responseObserver);
          break;
        case METHODID_MOVE_PLAYER:
          serviceImpl.movePlayer((stud.v1.MovePlayerRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.MovePlayerResponse>) responseObserver);
          break;
        case METHODID_SET_HAND_HOLD:
          serviceImpl.setHandHold((stud.v1.SetHandHoldRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.SetHandHoldResponse>) responseObserver);
          break;
        case METHODID_SET_TOURNAMENT_INFO:
          serviceImpl.setTournamentInfo((stud.v1.SetTournamentInfoRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.SetTournamentInfoResponse>) responseObserver);
          break;
        case METHODID_AWARD_PLACE:
          serviceImpl.awardPlace((stud.v1.AwardPlaceRequest) request,
              (io.grpc.stub.StreamObserver<stud.v1.AwardPlaceResponse>) responseObserver);
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
        default:
          throw new AssertionError();
      }
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (AdminServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .addMethod(getCreateTableMethod())
              .addMethod(getSeatPlayerMethod())
              .addMethod(getAddChipsMethod())
              .addMethod(getListTablesMethod())
              .addMethod(getGetTableMethod())
              .addMethod(getPauseTableMethod())
              .addMethod(getResumeTableMethod())
              .addMethod(getCloseTableMethod())
              .addMethod(getCancelHandMethod())
              .addMethod(getRemovePlayerMethod())
              .addMethod(getRotateSeedMethod())
              .addMethod(getDrainMethod())
              .addMethod(getMoveTableMethod())
              .addMethod(getListSeatSessionsMethod())
              .addMethod(getListNodesMethod())
              .addMethod(getSetStakesMethod())
              .addMethod(getMovePlayerMethod())
              .addMethod(getSetHandHoldMethod())
              .addMethod(getSetTournamentInfoMethod())
              .addMethod(getAwardPlaceMethod())
              .build();
        }
      }
    }
    return result;
  }
}
