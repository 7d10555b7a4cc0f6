package builtins

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
)

// fakeQuestioner answers from a script and records what it was asked.
type fakeQuestioner struct {
	answers [][]string
	err     error
	asked   []runtime.Question
}

func (f *fakeQuestioner) AskQuestions(_ context.Context, qs []runtime.Question) ([][]string, error) {
	f.asked = append(f.asked, qs...)
	return f.answers, f.err
}

func TestQuestion(t *testing.T) {
	t.Parallel()
	qs := []runtime.Question{
		{Question: "Which database?", Header: "DB", Options: []string{"Postgres (Recommended)", "SQLite"}},
		{Question: "Which features?", Options: []string{"auth", "billing", "search"}, Multiple: true},
		{Question: "Anything else?"},
	}
	tests := []struct {
		name    string
		asks    []runtime.Question
		answers [][]string
		title   string
		output  string
	}{
		{
			name:    "answers are quoted after their questions, several joined by commas",
			asks:    qs,
			answers: [][]string{{"SQLite"}, {"auth", "search"}, {"keep it small"}},
			title:   "Asked 3 questions",
			output:  `User has answered your questions: "Which database?"="SQLite", "Which features?"="auth, search", "Anything else?"="keep it small". You can now continue with the user's answers in mind.`,
		},
		{
			name:    "a question without an answer is marked unanswered",
			asks:    qs[:2],
			answers: [][]string{{"Postgres (Recommended)"}},
			title:   "Asked 2 questions",
			output:  `User has answered your questions: "Which database?"="Postgres (Recommended)", "Which features?"="Unanswered". You can now continue with the user's answers in mind.`,
		},
		{
			name:    "one question has a singular title",
			asks:    qs[2:],
			answers: [][]string{{}},
			title:   "Asked 1 question",
			output:  `User has answered your questions: "Anything else?"="Unanswered". You can now continue with the user's answers in mind.`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := &fakeQuestioner{answers: tt.answers}
			tc := runtime.NewContext(runtime.Context{SessionID: "s", Questioner: q}, nil, nil)
			res, err := invokeTool(t, Question(), tc, questionParams{Questions: tt.asks})
			if err != nil {
				t.Fatal(err)
			}
			if res.Title != tt.title {
				t.Errorf("title %q, want %q", res.Title, tt.title)
			}
			if res.Output != tt.output {
				t.Errorf("output\n%s\nwant\n%s", res.Output, tt.output)
			}
			if !slices.EqualFunc(q.asked, tt.asks, func(a, b runtime.Question) bool {
				return a.Question == b.Question && a.Header == b.Header && a.Multiple == b.Multiple && slices.Equal(a.Options, b.Options)
			}) {
				t.Errorf("the person was asked %+v, want %+v", q.asked, tt.asks)
			}
		})
	}
}

func TestQuestionWithoutAPersonIsAnError(t *testing.T) {
	t.Parallel()
	tc := runtime.NewContext(runtime.Context{SessionID: "s"}, nil, nil)
	_, err := invokeTool(t, Question(), tc, questionParams{Questions: []runtime.Question{{Question: "ok?"}}})
	if err == nil || !strings.Contains(err.Error(), "no person can answer") {
		t.Errorf("error %v, want one saying no person can answer", err)
	}
}

func TestQuestionPassesTheQuestionersErrorOn(t *testing.T) {
	t.Parallel()
	q := &fakeQuestioner{err: context.Canceled}
	tc := runtime.NewContext(runtime.Context{SessionID: "s", Questioner: q}, nil, nil)
	_, err := invokeTool(t, Question(), tc, questionParams{Questions: []runtime.Question{{Question: "ok?"}}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want it to wrap context.Canceled", err)
	}
}

func TestInvalid(t *testing.T) {
	t.Parallel()
	tc := runtime.NewContext(runtime.Context{SessionID: "s"}, nil, nil)
	res, err := invokeTool(t, Invalid(), tc, invalidParams{Tool: "raed", Error: "Model tried to call unavailable tool 'raed'."})
	if err != nil {
		t.Fatal(err)
	}
	if res.Title != "Invalid Tool" || res.Output != "The arguments provided to the tool are invalid: Model tried to call unavailable tool 'raed'." {
		t.Errorf("got %q / %q", res.Title, res.Output)
	}
}
