package release

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// cdx is the part of CycloneDX 1.5 an SBOM of a Go binary uses.
type cdx struct {
	BOMFormat    string         `json:"bomFormat"`
	SpecVersion  string         `json:"specVersion"`
	SerialNumber string         `json:"serialNumber"`
	Version      int            `json:"version"`
	Metadata     cdxMetadata    `json:"metadata"`
	Components   []cdxComponent `json:"components"`
	Dependencies []cdxDep       `json:"dependencies"`
}

type cdxMetadata struct {
	Timestamp string       `json:"timestamp,omitempty"`
	Tools     cdxTools     `json:"tools"`
	Component cdxComponent `json:"component"`
}

type cdxTools struct {
	Components []cdxComponent `json:"components"`
}

type cdxComponent struct {
	Type       string        `json:"type"`
	BOMRef     string        `json:"bom-ref,omitempty"`
	Name       string        `json:"name"`
	Version    string        `json:"version,omitempty"`
	PURL       string        `json:"purl,omitempty"`
	Hashes     []cdxHash     `json:"hashes,omitempty"`
	Properties []cdxProperty `json:"properties,omitempty"`
}

type cdxHash struct {
	Alg     string `json:"alg"`
	Content string `json:"content"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type cdxDep struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn"`
}

// SBOMOfFile reads the build information of the Go binary at path and
// returns its SBOM (SBOM). A file that is not a Go binary, or was built
// without module information, is an error.
// version, when the binary does not carry its own (a build without VCS
// stamping says "(devel)"), is the main module's version.
func SBOMOfFile(path, version string, binary []byte, created time.Time) ([]byte, error) {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the build information of %s (is it a Go binary built in module mode?): %w", path, err)
	}
	if version != "" && (info.Main.Version == "" || info.Main.Version == "(devel)") {
		info.Main.Version = version
	}
	return SBOM(info, binary, created)
}

// SBOM returns a CycloneDX 1.5 JSON document for a binary built as info
// says: the main module as the described component, the Go toolchain and
// every module linked in as components, each with its package URL
// (pkg:golang/…) and, where the module proxy's checksum is recorded, that
// checksum as a property. binary, when given, is hashed into the main
// component. A module replaced by a local directory keeps its path and
// says where its code came from. created is the document's timestamp
// (pass the commit time for a reproducible SBOM; zero omits it).
func SBOM(info *debug.BuildInfo, binary []byte, created time.Time) ([]byte, error) {
	if info == nil || info.Main.Path == "" {
		return nil, fmt.Errorf("the binary has no main module in its build information; build it with go build in module mode")
	}
	main := module(&info.Main, "application")
	if binary != nil {
		sum := sha256.Sum256(binary)
		main.Hashes = []cdxHash{{Alg: "SHA-256", Content: fmt.Sprintf("%x", sum)}}
	}
	for _, s := range info.Settings {
		main.Properties = append(main.Properties, cdxProperty{Name: "go:build:" + s.Key, Value: s.Value})
	}
	goVersion := strings.TrimPrefix(info.GoVersion, "go")
	toolchain := cdxComponent{
		Type: "platform", BOMRef: "pkg:golang/std@v" + goVersion, Name: "std",
		Version: "v" + goVersion, PURL: "pkg:golang/std@v" + goVersion,
	}
	doc := cdx{
		BOMFormat:   "CycloneDX",
		SpecVersion: "1.5",
		Version:     1,
		Metadata: cdxMetadata{
			Tools:     cdxTools{Components: []cdxComponent{{Type: "application", Name: "toolhost-release"}}},
			Component: main,
		},
		Components: []cdxComponent{toolchain},
	}
	if !created.IsZero() {
		doc.Metadata.Timestamp = created.UTC().Format(time.RFC3339)
	}
	root := cdxDep{Ref: main.BOMRef, DependsOn: []string{toolchain.BOMRef}}
	for _, d := range info.Deps {
		c := module(d, "library")
		doc.Components = append(doc.Components, c)
		root.DependsOn = append(root.DependsOn, c.BOMRef)
	}
	doc.Dependencies = []cdxDep{root}
	// The serial number is derived from the content, so the same binary
	// gets the same document.
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	h := fmt.Sprintf("%x", sha256.Sum256(body))
	doc.SerialNumber = "urn:uuid:" + h[0:8] + "-" + h[8:12] + "-5" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
	return json.MarshalIndent(doc, "", "  ")
}

// module is a module of the build as a component.
func module(m *debug.Module, typ string) cdxComponent {
	version := m.Version
	purl := "pkg:golang/" + m.Path
	if version != "" && version != "(devel)" {
		purl += "@" + version
	}
	c := cdxComponent{Type: typ, BOMRef: purl, Name: m.Path, Version: version, PURL: purl}
	if m.Sum != "" {
		c.Properties = append(c.Properties, cdxProperty{Name: "go:module:sum", Value: m.Sum})
	}
	if r := m.Replace; r != nil {
		c.Properties = append(c.Properties, cdxProperty{Name: "go:module:replaced-by", Value: strings.TrimSpace(r.Path + " " + r.Version)})
		if r.Sum != "" {
			c.Properties = append(c.Properties, cdxProperty{Name: "go:module:sum", Value: r.Sum})
		}
	}
	return c
}
