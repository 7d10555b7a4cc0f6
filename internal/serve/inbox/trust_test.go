package inbox_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/confine/trust"
	"github.com/toolhost/toolhost/runtime/config"
)

// The page shows an untrusted project's banner with what trusting would
// let it do, and POST /api/trust trusts exactly the content shown — a
// write guarded like a reply: JSON only, no cross-site origin, the token
// when one is set.
func TestTheTrustBannerAndItsWriteAreGuardedLikeEveryWrite(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	rv := trust.Reviewer{
		Dirs:  config.DirOptions{Directory: f.dir, Worktree: f.dir, Home: t.TempDir(), Env: func(string) string { return "" }},
		Store: trust.StoreIn(t.TempDir()),
	}
	f.ib.SetTrust(rv, false)

	res, err := http.Get(f.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	digest := rv.Review().Digest
	for _, want := range []string{"This project is not trusted", `bash &#34;*&#34;: ask`, `data-trust="` + digest + `"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}

	post := func(contentType, body string, header map[string]string) (int, string) {
		req, _ := http.NewRequest("POST", f.url+"/api/trust", strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	body := `{"digest":"` + digest + `"}`
	for _, c := range []struct {
		name, contentType, body string
		header                  map[string]string
		want                    int
	}{
		{"a form post (CSRF) is refused", "application/x-www-form-urlencoded", "digest=" + digest, nil, 415},
		{"a text/plain post is refused", "text/plain", body, nil, 415},
		{"a cross-site page is refused", "application/json", body, map[string]string{"Origin": "https://evil.example"}, 403},
		{"a cross-site fetch by metadata is refused", "application/json", body, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"an unknown field is refused", "application/json", `{"digest":"` + digest + `","all":true}`, nil, 400},
		{"an empty digest is refused", "application/json", `{}`, nil, 400},
		{"another digest than the content's is refused", "application/json", `{"digest":"sha256:00"}`, nil, 409},
	} {
		if got, text := post(c.contentType, c.body, c.header); got != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, got, text, c.want)
		}
	}
	if st := trust.Check(rv.Dirs, rv.Store); st.Trusted {
		t.Fatal("a refused request trusted the project")
	}
	// The content changes after the page showed it: the shown digest no
	// longer trusts anything.
	if err := os.WriteFile(filepath.Join(f.dir, "toolhost.json"), []byte(`{"permission": {"bash": "allow"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, text := post("application/json", body, nil); got != 409 || !strings.Contains(text, "changed") {
		t.Errorf("trusting content that changed since shown: %d %s, want 409", got, text)
	}
	digest = rv.Review().Digest
	if got, text := post("application/json", `{"digest":"`+digest+`"}`, nil); got != 200 || !strings.Contains(text, `"restart":true`) {
		t.Fatalf("trust: %d %s", got, text)
	}
	if st := trust.Check(rv.Dirs, rv.Store); !st.Trusted {
		t.Error("the project is not trusted after the page trusted it")
	}
	res, err = http.Get(f.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), "restart it") {
		t.Errorf("after trusting, the banner does not say to restart:\n%s", page)
	}
}

func TestTheTrustWriteNeedsTheToken(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{token: "s3cret"})
	rv := trust.Reviewer{
		Dirs:  config.DirOptions{Directory: f.dir, Worktree: f.dir, Home: t.TempDir(), Env: func(string) string { return "" }},
		Store: trust.StoreIn(t.TempDir()),
	}
	f.ib.SetTrust(rv, false)
	req, _ := http.NewRequest("POST", f.url+"/api/trust", strings.NewReader(`{"digest":"`+rv.Review().Digest+`"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("POST /api/trust without the token: %d, want 401", res.StatusCode)
	}
	if st := trust.Check(rv.Dirs, rv.Store); st.Trusted {
		t.Error("trusted without the token")
	}
}
