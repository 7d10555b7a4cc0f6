package builtins

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/runtime"
)

// questionToolName is the question tool's id.
const questionToolName = "question"

//go:embed question.txt
var questionDescription string

// questionParams are the question tool's arguments.
type questionParams struct {
	Questions []runtime.Question `json:"questions" jsonschema:"minItems=1" jsonschema_description:"Questions to ask"`
}

// errNoQuestioner is returned where no person can answer: a host without a
// Questioner does not offer the tool, so a call means the model used a tool
// it was not given.
var errNoQuestioner = errors.New("no person can answer questions here (the host runs without an interactive user); decide yourself from the information you have, and state your assumptions")

// Question returns the question tool: it asks a person through the host's
// Questioner (the CLI prompts on a terminal) and returns the answers. It
// asks no permission — the person it asks is the one who would grant it.
// Result metadata: answers (one list of chosen or typed answers per
// question).
func Question() runtime.Tool {
	return runtime.Declare(runtime.Define(questionToolName, questionDescription, func(ctx context.Context, p questionParams, tc *runtime.Context) (runtime.Result, error) {
		if tc.Questioner == nil {
			return runtime.Result{}, errNoQuestioner
		}
		if len(p.Questions) == 0 {
			return runtime.Result{}, errors.New("no questions given; pass at least one question")
		}
		answers, err := tc.Questioner.AskQuestions(ctx, p.Questions)
		if err != nil {
			return runtime.Result{}, fmt.Errorf("ask the user: %w", err)
		}
		parts := make([]string, len(p.Questions))
		for i, q := range p.Questions {
			answer := "Unanswered"
			if i < len(answers) && len(answers[i]) > 0 {
				answer = strings.Join(answers[i], ", ")
			}
			parts[i] = fmt.Sprintf("%q=%q", q.Question, answer)
		}
		title := fmt.Sprintf("Asked %d question", len(p.Questions))
		if len(p.Questions) > 1 {
			title += "s"
		}
		return runtime.Result{
			Title:    title,
			Output:   "User has answered your questions: " + strings.Join(parts, ", ") + ". You can now continue with the user's answers in mind.",
			Metadata: map[string]any{"answers": answers},
		}, nil
	}), questionTraits)
}

// questionTraits: offered only where a person can answer; the gate asks
// "question" before it runs.
var questionTraits = runtime.Traits{
	Available: func(env runtime.Env) error {
		if !env.CanAsk {
			return runtime.NotOffered("no person can answer questions in this host", "")
		}
		return nil
	},
	Hints: &runtime.Hints{},
}
