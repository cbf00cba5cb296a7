package main

import (
	"fmt"
	"sync"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"stud/studv1"
)

// followsInARow bounds how often a seat follows TABLE_MOVED without a message in between: a
// broken setup (two nodes naming each other) must not loop. Any message resets the count.
const followsInARow = 5

// movedTo is the gRPC address an UNAVAILABLE / TABLE_MOVED refusal names for the table's new
// engine node (its ErrorInfo's grpc_address), as stud.bots.follow.moved_to; "" for any other
// failure.
func movedTo(err error) string {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.Unavailable {
		return ""
	}
	for _, detail := range st.Details() {
		if info, ok := detail.(*errdetails.ErrorInfo); ok && info.Reason == "TABLE_MOVED" {
			return info.Metadata["grpc_address"]
		}
	}
	return ""
}

// dial opens a connection to address as the worker's own (no TLS, messages up to 4 MiB).
func dial(address string) (*grpc.ClientConn, error) {
	conn, err := grpc.Dial(address,
		grpc.WithInsecure(),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<22)),
	)
	if err != nil {
		return nil, fmt.Errorf("channel to %s: %w", address, err)
	}
	return conn, nil
}

// nodes holds the connections to the nodes tables moved to: one per address, shared by every
// seat that follows there.
type nodes struct {
	mu    sync.Mutex
	conns map[string]*grpc.ClientConn
}

// client is a TableService client on address's connection, dialled at its first use.
func (n *nodes) client(address string) (studv1.TableServiceClient, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	conn := n.conns[address]
	if conn == nil {
		var err error
		if conn, err = dial(address); err != nil {
			return nil, err
		}
		if n.conns == nil {
			n.conns = map[string]*grpc.ClientConn{}
		}
		n.conns[address] = conn
	}
	return studv1.NewTableServiceClient(conn), nil
}

func (n *nodes) close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, conn := range n.conns {
		conn.Close()
	}
}
