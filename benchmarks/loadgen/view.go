package main

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"stud/studv1"
)

// seatView is what a bot reads of a WatchTableResponse: decoding only these fields (and
// skipping the seats, settings, events and results) is most of what makes the Go bots cheap.
type seatView struct {
	sequence int64
	// carries: the message has events (an update, not a stream's first snapshot).
	carries bool
	// actionID: the act that caused this change (WatchTableResponse.action_id); a Play bot
	// learns its act's sequence from it.
	actionID string
	// From the snapshot.
	handNumber     int64
	handInProgress bool
	turnSeat       int32
	legalActions   []*studv1.LegalAction
}

// Field numbers of stud.v1.WatchTableResponse and stud.v1.TableSnapshot.
const (
	responseSequence       = 1
	responseSnapshot       = 3
	responseEvents         = 4
	responseActionID       = 5
	snapshotHandNumber     = 7
	snapshotHandInProgress = 8
	snapshotTurnSeat       = 13
	snapshotLegalActions   = 15
)

var errMalformed = errors.New("malformed WatchTableResponse")

// decode reads a WatchTableResponse's wire bytes into v, as proto.Unmarshal would for these
// fields (the last of a scalar wins, repeated ones add up, a repeated snapshot merges).
func (v *seatView) decode(data []byte) error {
	*v = seatView{}
	for len(data) > 0 {
		number, kind, n := protowire.ConsumeTag(data)
		if n < 0 {
			return errMalformed
		}
		data = data[n:]
		switch {
		case number == responseSequence && kind == protowire.VarintType:
			value, n := protowire.ConsumeVarint(data)
			if n < 0 {
				return errMalformed
			}
			v.sequence = int64(value)
			data = data[n:]
		case number == responseSnapshot && kind == protowire.BytesType:
			snapshot, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return errMalformed
			}
			if err := v.decodeSnapshot(snapshot); err != nil {
				return err
			}
			data = data[n:]
		case number == responseActionID && kind == protowire.BytesType:
			id, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return errMalformed
			}
			// A copy: gRPC may reuse the message's buffer.
			v.actionID = string(id)
			data = data[n:]
		default:
			if number == responseEvents {
				v.carries = true
			}
			n := protowire.ConsumeFieldValue(number, kind, data)
			if n < 0 {
				return errMalformed
			}
			data = data[n:]
		}
	}
	return nil
}

func (v *seatView) decodeSnapshot(data []byte) error {
	for len(data) > 0 {
		number, kind, n := protowire.ConsumeTag(data)
		if n < 0 {
			return errMalformed
		}
		data = data[n:]
		if kind == protowire.VarintType &&
			(number == snapshotHandNumber || number == snapshotHandInProgress || number == snapshotTurnSeat) {
			value, n := protowire.ConsumeVarint(data)
			if n < 0 {
				return errMalformed
			}
			switch number {
			case snapshotHandNumber:
				v.handNumber = int64(value)
			case snapshotHandInProgress:
				v.handInProgress = value != 0
			case snapshotTurnSeat:
				v.turnSeat = int32(value)
			}
			data = data[n:]
			continue
		}
		if number == snapshotLegalActions && kind == protowire.BytesType {
			encoded, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return errMalformed
			}
			action := &studv1.LegalAction{}
			if err := proto.Unmarshal(encoded, action); err != nil {
				return fmt.Errorf("%w: legal action: %v", errMalformed, err)
			}
			v.legalActions = append(v.legalActions, action)
			data = data[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(number, kind, data)
		if n < 0 {
			return errMalformed
		}
		data = data[n:]
	}
	return nil
}

// viewCodec is the WatchTable and Play calls' codec: requests are marshalled as usual,
// responses decoded into a *seatView (WatchTable) or a *playMessage (Play).
type viewCodec struct{}

func (viewCodec) Marshal(v any) ([]byte, error) {
	message, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("viewCodec: cannot marshal %T", v)
	}
	return proto.Marshal(message)
}

func (viewCodec) Unmarshal(data []byte, v any) error {
	switch message := v.(type) {
	case *seatView:
		return message.decode(data)
	case *playMessage:
		return message.decode(data)
	}
	return fmt.Errorf("viewCodec: cannot unmarshal into %T", v)
}

func (viewCodec) Name() string { return "proto" }

// playMessage is what a bot reads of a PlayResponse: an update (a WatchTableResponse, read
// as a seatView) or an act's result.
type playMessage struct {
	update bool
	view   seatView
	result *studv1.ActResult
}

// Field numbers of stud.v1.PlayResponse.
const (
	playUpdate = 1
	playResult = 2
)

// decode reads a PlayResponse's wire bytes into m (its oneof: the last field present wins;
// the engine sends one).
func (m *playMessage) decode(data []byte) error {
	*m = playMessage{}
	for len(data) > 0 {
		number, kind, n := protowire.ConsumeTag(data)
		if n < 0 {
			return errMalformed
		}
		data = data[n:]
		if kind == protowire.BytesType && (number == playUpdate || number == playResult) {
			value, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return errMalformed
			}
			data = data[n:]
			if number == playUpdate {
				m.update, m.result = true, nil
				if err := m.view.decode(value); err != nil {
					return err
				}
				continue
			}
			result := &studv1.ActResult{}
			if err := proto.Unmarshal(value, result); err != nil {
				return fmt.Errorf("%w: act result: %v", errMalformed, err)
			}
			m.update, m.view, m.result = false, seatView{}, result
			continue
		}
		n = protowire.ConsumeFieldValue(number, kind, data)
		if n < 0 {
			return errMalformed
		}
		data = data[n:]
	}
	if !m.update && m.result == nil {
		return fmt.Errorf("%w: a PlayResponse with neither update nor act", errMalformed)
	}
	return nil
}
