package host

import (
	"context"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/hostfns"
)

func TestNewRefusesTwoHostFunctionsOfOneName(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	def, err := hostfns.Define(hostfns.Func[struct{}, string]{Name: "weather", Permission: "weather",
		Run: func(context.Context, hostfns.Caller, struct{}) (string, error) { return "", nil }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(context.Background(), Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: testCache(t), HostFuncs: []hostfns.Def{def, def}})
	if err == nil || !strings.Contains(err.Error(), `"weather" is defined twice`) {
		t.Fatalf("New = %v, want the duplicate refused", err)
	}
}
