package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"stud/studv1"
)

// preference is the order a bot takes actions in when it does not press: check or call
// first, so hands go to showdown and stacks last.
var preference = []studv1.ActionKind{
	studv1.ActionKind_ACTION_KIND_CHECK,
	studv1.ActionKind_ACTION_KIND_CALL,
	studv1.ActionKind_ACTION_KIND_BRING_IN,
	studv1.ActionKind_ACTION_KIND_SHOW,
	studv1.ActionKind_ACTION_KIND_COMPLETE,
	studv1.ActionKind_ACTION_KIND_BET,
	studv1.ActionKind_ACTION_KIND_RAISE,
	studv1.ActionKind_ACTION_KIND_FOLD,
	studv1.ActionKind_ACTION_KIND_MUCK,
}

// pressing goes before preference when a bot presses (roll < aggression).
var pressing = []studv1.ActionKind{
	studv1.ActionKind_ACTION_KIND_BET,
	studv1.ActionKind_ACTION_KIND_RAISE,
	studv1.ActionKind_ACTION_KIND_COMPLETE,
}

// choice is a bot's action: its kind, and the amount when the legal action needs one.
type choice struct {
	Kind   studv1.ActionKind `json:"kind"`
	Amount *int64            `json:"amount"`
}

// chooseAction is benchmarks.engine_load.choose_action: roll is the bot's random draw in
// [0, 1); below aggression the smallest bet, raise or completion comes first.
func chooseAction(legal []*studv1.LegalAction, roll, aggression float64) choice {
	// Python's dict keeps the last action of a kind; the engine never repeats one.
	byKind := make(map[studv1.ActionKind]*studv1.LegalAction, len(legal))
	for _, action := range legal {
		byKind[action.Kind] = action
	}
	order := preference
	if roll < aggression {
		order = append(append([]studv1.ActionKind{}, pressing...), preference...)
	}
	chosen := legal[0]
	for _, kind := range order {
		if action, ok := byKind[kind]; ok {
			chosen = action
			break
		}
	}
	if chosen.MaxAmount != chosen.MinAmount {
		amount := chosen.MinAmount
		if len(chosen.Amounts) > 0 {
			amount = chosen.Amounts[0]
		}
		return choice{Kind: chosen.Kind, Amount: &amount}
	}
	return choice{Kind: chosen.Kind}
}

// selftestCase is one line of -selftest's input.
type selftestCase struct {
	Legal []struct {
		Kind      int32   `json:"kind"`
		MinAmount int64   `json:"min_amount"`
		MaxAmount int64   `json:"max_amount"`
		Amounts   []int64 `json:"amounts"`
	} `json:"legal"`
	Roll       float64 `json:"roll"`
	Aggression float64 `json:"aggression"`
}

// selftest answers each JSON line of in ({"legal": [...], "roll": r, "aggression": a}) with
// the choice chooseAction makes, one JSON line each, for the Python tests to compare with
// choose_action.
func selftest(in io.Reader, out io.Writer) error {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<16), 1<<24)
	encoder := json.NewEncoder(out)
	for line := 1; scanner.Scan(); line++ {
		var c selftestCase
		if err := json.Unmarshal(scanner.Bytes(), &c); err != nil {
			return fmt.Errorf("selftest line %d: %w", line, err)
		}
		if len(c.Legal) == 0 {
			return fmt.Errorf("selftest line %d: no legal actions", line)
		}
		legal := make([]*studv1.LegalAction, len(c.Legal))
		for i, a := range c.Legal {
			legal[i] = &studv1.LegalAction{
				Kind:      studv1.ActionKind(a.Kind),
				MinAmount: a.MinAmount,
				MaxAmount: a.MaxAmount,
				Amounts:   a.Amounts,
			}
		}
		if err := encoder.Encode(chooseAction(legal, c.Roll, c.Aggression)); err != nil {
			return err
		}
	}
	return scanner.Err()
}
