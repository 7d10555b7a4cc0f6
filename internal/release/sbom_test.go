package release_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/release"
)

type sbomDoc struct {
	BOMFormat, SpecVersion, SerialNumber string
	Metadata                             struct {
		Timestamp string
		Component component
	}
	Components   []component
	Dependencies []struct {
		Ref       string
		DependsOn []string
	}
}

type component struct {
	Type, Name, Version, PURL string
	BOMRef                    string `json:"bom-ref"`
	Hashes                    []struct{ Alg, Content string }
	Properties                []struct{ Name, Value string }
}

func (c component) property(name string) string {
	for _, p := range c.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

func TestSBOMListsEveryModuleOfTheBuildWithItsPackageURL(t *testing.T) {
	t.Parallel()
	info := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/toolhost/toolhost", Version: "v1.2.3"},
		Deps: []*debug.Module{
			{Path: "github.com/tetratelabs/wazero", Version: "v1.12.0", Sum: "h1:abc="},
			{Path: "github.com/modelcontextprotocol/go-sdk", Version: "v1.8.0", Sum: "h1:def=",
				Replace: &debug.Module{Path: "./third_party/go-sdk"}},
		},
		Settings: []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "0"}, {Key: "GOOS", Value: "linux"}},
	}
	created := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	b, err := release.SBOM(info, []byte("the binary"), created)
	if err != nil {
		t.Fatal(err)
	}
	var doc sbomDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.BOMFormat != "CycloneDX" || doc.SpecVersion != "1.5" || doc.Metadata.Timestamp != "2026-11-28T08:00:00Z" {
		t.Errorf("header = %s %s %s", doc.BOMFormat, doc.SpecVersion, doc.Metadata.Timestamp)
	}
	// CycloneDX's schema pattern for the serial number.
	if !regexp.MustCompile(`^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(doc.SerialNumber) {
		t.Errorf("serial number %q is not a UUID URN", doc.SerialNumber)
	}
	main := doc.Metadata.Component
	if main.PURL != "pkg:golang/github.com/toolhost/toolhost@v1.2.3" || main.property("go:build:CGO_ENABLED") != "0" {
		t.Errorf("main component = %+v", main)
	}
	if sum := fmt.Sprintf("%x", sha256.Sum256([]byte("the binary"))); len(main.Hashes) != 1 || main.Hashes[0].Alg != "SHA-256" || main.Hashes[0].Content != sum {
		t.Errorf("main component hashes = %+v", main.Hashes)
	}
	want := map[string]component{
		"pkg:golang/std@v1.26.8":                                   {Type: "platform"},
		"pkg:golang/github.com/tetratelabs/wazero@v1.12.0":         {Type: "library"},
		"pkg:golang/github.com/modelcontextprotocol/go-sdk@v1.8.0": {Type: "library"},
	}
	for _, c := range doc.Components {
		w, ok := want[c.PURL]
		if !ok {
			t.Errorf("unexpected component %s", c.PURL)
			continue
		}
		delete(want, c.PURL)
		if c.Type != w.Type || c.BOMRef != c.PURL {
			t.Errorf("%s: type %s, ref %s", c.PURL, c.Type, c.BOMRef)
		}
		if strings.Contains(c.PURL, "go-sdk") && c.property("go:module:replaced-by") != "./third_party/go-sdk" {
			t.Errorf("the replaced go-sdk does not say where its code came from: %+v", c.Properties)
		}
		if strings.Contains(c.PURL, "wazero") && c.property("go:module:sum") != "h1:abc=" {
			t.Errorf("wazero's checksum is missing: %+v", c.Properties)
		}
	}
	for purl := range want {
		t.Errorf("component %s is missing", purl)
	}
	if len(doc.Dependencies) != 1 || len(doc.Dependencies[0].DependsOn) != 3 {
		t.Errorf("dependencies = %+v", doc.Dependencies)
	}
	again, _ := release.SBOM(info, []byte("the binary"), created)
	if string(again) != string(b) {
		t.Error("the same build gave two different SBOMs")
	}
}

func TestSBOMOfFileReadsTheBinarysOwnBuildInformation(t *testing.T) {
	t.Parallel()
	// A test binary records no modules: build the release command, which
	// links image-spec through package release.
	exe := filepath.Join(t.TempDir(), "toolhost-release")
	if out, err := exec.Command("go", "build", "-o", exe, "./cmd/toolhost-release").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	b, err := release.SBOMOfFile(exe, "v0.0.0-test", nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"purl": "pkg:golang/github.com/opencontainers/image-spec@v`) {
		t.Errorf("the SBOM of the test binary lacks image-spec:\n%.2000s", b)
	}
	if strings.Contains(string(b), `"timestamp"`) {
		t.Error("a zero creation time still wrote a timestamp")
	}
}

func TestSBOMOfANonGoFileSaysWhatItNeeds(t *testing.T) {
	t.Parallel()
	f := t.TempDir() + "/toolhost"
	if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := release.SBOMOfFile(f, "", nil, time.Time{})
	if err == nil || !strings.Contains(err.Error(), "is it a Go binary built in module mode?") {
		t.Errorf("err = %v", err)
	}
}
