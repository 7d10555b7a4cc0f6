package builtins

import (
	"strings"
	"testing"
)

func TestCodeSearchKeepsTokensNumInRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   int
		want float64
	}{
		{"no tokensNum asks for the default", 0, 5000},
		{"too few is raised to the minimum", 200, 1000},
		{"too many is lowered to the maximum", 90000, 50000},
		{"a value in range is passed as is", 12000, 12000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newSearchServer(t, sseResult("func main() {}"))
			res, err := invokeTool(t, CodeSearch(), searchContext(srv, allowAll), codeSearchParams{Query: "go main", TokensNum: tt.in})
			if err != nil {
				t.Fatal(err)
			}
			req := srv.calls[0].Body.Params
			if req.Name != "get_code_context_exa" || req.Arguments["tokensNum"] != tt.want || req.Arguments["query"] != "go main" {
				t.Errorf("call %+v", req)
			}
			if res.Output != "func main() {}" || res.Title != "Code search: go main" || res.Metadata["tokensNum"] != int(tt.want) {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestCodeSearchDescriptionStatesTheLimitsTheCodeEnforces(t *testing.T) {
	t.Parallel()
	for _, want := range []string{"1000 to 50000", "default 5000"} {
		if !strings.Contains(codesearchDescription(), want) {
			t.Errorf("description lacks %q:\n%s", want, codesearchDescription())
		}
	}
}
