package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"
)

type doc = map[string]any

// parse reads a stream of YAML documents, refusing one that does not parse.
func parse(t *testing.T, b []byte) []doc {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []doc
	for {
		var d doc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("the manifests do not parse: %v", err)
		}
		if d != nil {
			out = append(out, d)
		}
	}
}

// get follows a path of map keys and list indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(doc)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func str(v any) string { return fmt.Sprint(v) }

func kinds(docs []doc) []string {
	var out []string
	for _, d := range docs {
		out = append(out, str(d["kind"]))
	}
	slices.Sort(out)
	return out
}

func find(docs []doc, kind string) doc {
	for _, d := range docs {
		if d["kind"] == kind {
			return d
		}
	}
	return nil
}

func argValue(args []any, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return str(args[i+1])
		}
	}
	return ""
}

func envValue(container any, name string) (value string, secretKey string, ok bool) {
	env, _ := get(container, "env").([]any)
	for _, e := range env {
		if get(e, "name") == name {
			if k := get(e, "valueFrom", "secretKeyRef", "key"); k != nil {
				return "", str(k), true
			}
			return str(get(e, "value")), "", true
		}
	}
	return "", "", false
}

// checkDrain holds a Deployment to what a rollout needs: readiness on
// /readyz, and the preStop sleep, the drain delay and the drain timeout
// inside the grace period, with a few seconds left to exit.
func checkDrain(t *testing.T, dep doc, wantPreStop bool) {
	t.Helper()
	c := get(dep, "spec", "template", "spec", "containers", 0)
	args, _ := get(c, "args").([]any)
	if args[0] != "mcp" {
		t.Fatalf("the server runs %v", args)
	}
	if p := get(c, "readinessProbe", "httpGet", "path"); p != "/readyz" {
		t.Errorf("readiness probe path %v; want /readyz", p)
	}
	delay, err1 := time.ParseDuration(argValue(args, "--drain-delay"))
	timeout, err2 := time.ParseDuration(argValue(args, "--drain-timeout"))
	if err1 != nil || err2 != nil || delay <= 0 {
		t.Fatalf("--drain-delay %q, --drain-timeout %q; want both, the delay positive", argValue(args, "--drain-delay"), argValue(args, "--drain-timeout"))
	}
	preStop := get(c, "lifecycle", "preStop", "sleep", "seconds")
	if (preStop != nil) != wantPreStop {
		t.Errorf("preStop sleep %v; want one: %v", preStop, wantPreStop)
	}
	sleep, _ := strconv.Atoi(str(preStop))
	grace, err := strconv.Atoi(str(get(dep, "spec", "template", "spec", "terminationGracePeriodSeconds")))
	if err != nil {
		t.Fatalf("terminationGracePeriodSeconds: %v", err)
	}
	need := time.Duration(sleep)*time.Second + delay + timeout + 3*time.Second
	if time.Duration(grace)*time.Second < need {
		t.Errorf("grace period %ds < preStop %ds + drain delay %s + drain timeout %s + 3s to exit", grace, sleep, delay, timeout)
	}
}

// checkMigrate holds a migrate Job and the replicas to the split: the Job
// runs toolhost migrate with the migrate URL, the replicas do not migrate.
func checkMigrate(t *testing.T, job, dep doc) {
	t.Helper()
	jc := get(job, "spec", "template", "spec", "containers", 0)
	if a := get(jc, "args", 0); a != "migrate" {
		t.Errorf("the job runs %v; want toolhost migrate", get(jc, "args"))
	}
	if _, key, _ := envValue(jc, "TOOLHOST_STORE_URL"); key != "TOOLHOST_MIGRATE_URL" {
		t.Errorf("the job's store URL comes from secret key %q; want TOOLHOST_MIGRATE_URL", key)
	}
	dc := get(dep, "spec", "template", "spec", "containers", 0)
	if v, _, _ := envValue(dc, "TOOLHOST_STORE_MIGRATE"); v != "false" {
		t.Errorf("the replicas' TOOLHOST_STORE_MIGRATE = %q; want false beside a migrate job", v)
	}
	if _, key, _ := envValue(dc, "TOOLHOST_STORE_URL"); key != "TOOLHOST_STORE_URL" {
		t.Errorf("the replicas' store URL comes from secret key %q", key)
	}
}

func TestThePlainManifestsParseDrainInsideTheGracePeriodAndMigrateApart(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("kubernetes", "toolhost.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := parse(t, b)
	if got, want := kinds(docs), []string{"ConfigMap", "ConfigMap", "Deployment", "Job", "Secret", "Secret", "Service"}; !slices.Equal(got, want) {
		t.Fatalf("kinds %v; want %v", got, want)
	}
	checkDrain(t, find(docs, "Deployment"), true)
	checkMigrate(t, find(docs, "Job"), find(docs, "Deployment"))
}

// helm finds the helm CLI: $TOOLHOST_HELM, PATH, then Go's bin directory
// (where .ci/run installs it with go install).
func helm(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("TOOLHOST_HELM")}
	if p, err := exec.LookPath("helm"); err == nil {
		candidates = append(candidates, p)
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		candidates = append(candidates, filepath.Join(strings.TrimSpace(string(out)), "bin", "helm"))
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("helm is needed for the chart's test in CI (.ci/run installs it)")
	}
	t.Skip("skipped: no helm CLI (go install helm.sh/helm/v3/cmd/helm@v3.22.0, or set TOOLHOST_HELM)")
	return ""
}

const chart = "helm/toolhost"

var required = []string{"--set", "secret.token=t0ken", "--set", "secret.storeURL=postgres://app:pw@db:5432/toolhost?search_path=toolhost"}

func render(t *testing.T, bin string, args ...string) ([]doc, error) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"template", "rel", chart}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm template %v: %w: %s", args, err, stderr.String())
	}
	return parse(t, out), nil
}

func TestTheHelmChartLintsAndRendersWhatARolloutNeeds(t *testing.T) {
	t.Parallel()
	bin := helm(t)
	if out, err := exec.Command(bin, append([]string{"lint", "--strict", chart}, required...)...).CombinedOutput(); err != nil {
		t.Fatalf("helm lint: %v\n%s", err, out)
	}
	docs, err := render(t, bin, append([]string{"--kube-version", "1.31.0"}, required...)...)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kinds(docs), []string{"ConfigMap", "ConfigMap", "Deployment", "Job", "Secret", "Service"}; !slices.Equal(got, want) {
		t.Fatalf("kinds %v; want %v", got, want)
	}
	dep, job, secret := find(docs, "Deployment"), find(docs, "Job"), find(docs, "Secret")
	checkDrain(t, dep, true)
	checkMigrate(t, job, dep)
	// The job runs before the replicas, reading a Secret made before it.
	if h := str(get(job, "metadata", "annotations", "helm.sh/hook")); h != "pre-install,pre-upgrade" {
		t.Errorf("the migrate job's hook is %q", h)
	}
	if h := str(get(secret, "metadata", "annotations", "helm.sh/hook-weight")); h != "-10" {
		t.Errorf("the secret's hook weight is %q; want it made before the job", h)
	}
	if got := str(get(secret, "stringData", "TOOLHOST_MIGRATE_URL")); !strings.HasPrefix(got, "postgres://app:") {
		t.Errorf("the migrate URL defaults to %q; want the store URL", got)
	}
	var cfg doc
	if err := yaml.Unmarshal([]byte(str(get(find(docs, "ConfigMap"), "data", "toolhost.json"))), &cfg); err != nil || get(cfg, "store", "retention") != "720h" {
		t.Errorf("toolhost.json in the ConfigMap = %v (%v)", cfg, err)
	}
	if get(find(docs, "Service"), "spec", "ports", 0, "targetPort") != "http" {
		t.Error("the Service does not target the http port")
	}
}

func TestTheHelmChartsOtherChoicesRenderAsTheySay(t *testing.T) {
	t.Parallel()
	bin := helm(t)
	for _, c := range []struct {
		name  string
		args  []string
		check func(t *testing.T, docs []doc)
	}{
		{"migrations at start instead of a job", []string{"--kube-version", "1.31.0", "--set", "migrate.enabled=false"}, func(t *testing.T, docs []doc) {
			if find(docs, "Job") != nil {
				t.Error("a migrate job with migrate.enabled false")
			}
			if v, _, _ := envValue(get(find(docs, "Deployment"), "spec", "template", "spec", "containers", 0), "TOOLHOST_STORE_MIGRATE"); v != "true" {
				t.Errorf("TOOLHOST_STORE_MIGRATE = %q; want true", v)
			}
			if get(find(docs, "Secret"), "metadata", "annotations") != nil {
				t.Error("the Secret is a hook without a job to need it")
			}
		}},
		{"a cluster without the preStop sleep drains by the delay alone", []string{"--kube-version", "1.29.0"}, func(t *testing.T, docs []doc) {
			checkDrain(t, find(docs, "Deployment"), false)
		}},
		{"grants and a trace endpoint reach the arguments", []string{"--kube-version", "1.31.0", "--set", "migrate.grant={toolhost_app}", "--set", "server.otlpEndpoint=http://otel:4318"}, func(t *testing.T, docs []doc) {
			jargs, _ := get(find(docs, "Job"), "spec", "template", "spec", "containers", 0, "args").([]any)
			if argValue(jargs, "--grant") != "toolhost_app" {
				t.Errorf("migrate args %v lack --grant toolhost_app", jargs)
			}
			dargs, _ := get(find(docs, "Deployment"), "spec", "template", "spec", "containers", 0, "args").([]any)
			if argValue(dargs, "--otlp-endpoint") != "http://otel:4318" {
				t.Errorf("server args %v lack the OTLP endpoint", dargs)
			}
		}},
		{"inbox operators reach the arguments as one list", []string{"--kube-version", "1.31.0", "--set", "server.inboxOperators={token,ops}"}, func(t *testing.T, docs []doc) {
			dargs, _ := get(find(docs, "Deployment"), "spec", "template", "spec", "containers", 0, "args").([]any)
			if argValue(dargs, "--inbox-operators") != "token,ops" {
				t.Errorf("server args %v lack --inbox-operators token,ops", dargs)
			}
		}},
		{"an existing secret is used, none made", []string{"--kube-version", "1.31.0", "--set", "secret.create=false", "--set", "secret.existingSecret=mine"}, func(t *testing.T, docs []doc) {
			if find(docs, "Secret") != nil {
				t.Error("a Secret made beside secret.existingSecret")
			}
			c := get(find(docs, "Deployment"), "spec", "template", "spec", "containers", 0)
			env, _ := get(c, "env").([]any)
			if get(env[0], "valueFrom", "secretKeyRef", "name") != "mine" {
				t.Errorf("the token comes from %v; want secret mine", get(env[0], "valueFrom"))
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			docs, err := render(t, bin, append(c.args, required...)...)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, docs)
		})
	}
	// Without a token the chart refuses, as the server would.
	if _, err := render(t, bin, "--set", "secret.storeURL=postgres://h/db"); err == nil || !strings.Contains(err.Error(), "secret.token is required") {
		t.Errorf("rendering without a token = %v; want the chart to refuse", err)
	}
}
