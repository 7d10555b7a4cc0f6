package builtins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadTextFiles(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", readMaxLineLength+10)
	tests := []struct {
		name      string
		content   string
		offset    int
		limit     int
		want      []string // substrings of the output
		notWant   []string
		wantErr   string
		truncated bool
	}{
		{name: "a small file is numbered and ends with the total", content: "a\nb\n", want: []string{"<type>file</type>", "1: a\n2: b", "(End of file - total 2 lines)"}},
		{name: "a last line without newline counts", content: "a\nb", want: []string{"2: b", "total 2 lines"}},
		{name: "an empty file has 0 lines", content: "", want: []string{"(End of file - total 0 lines)"}},
		{name: "CRLF endings are not shown", content: "a\r\nb\r\n", want: []string{"1: a\n2: b\n"}, notWant: []string{"\r"}},
		{name: "a BOM is not shown", content: "\uFEFFa\n", want: []string{"1: a\n"}, notWant: []string{"\uFEFF"}},
		{name: "the default limit is 2000 lines with a continue footer", content: numberedLines(2500),
			want: []string{"2000: line 2000", "(Showing lines 1-2000 of 2500. Use offset=2001 to continue.)"}, notWant: []string{"2001: "}, truncated: true},
		{name: "offset and limit select a page", content: numberedLines(100), offset: 10, limit: 5,
			want: []string{"10: line 10\n", "14: line 14", "(Showing lines 10-14 of 100. Use offset=15 to continue.)"}, notWant: []string{"9: line 9", "15: line 15"}, truncated: true},
		{name: "the last page ends with the total", content: numberedLines(100), offset: 95,
			want: []string{"95: line 95", "100: line 100", "(End of file - total 100 lines)"}},
		{name: "an offset past the end is an error", content: numberedLines(3), offset: 5, wantErr: "Offset 5 is out of range for this file (3 lines)"},
		{name: "long lines are cut with a marker", content: long + "\n", want: []string{"1: " + strings.Repeat("é", readMaxLineLength) + "... (line truncated to 2000 chars)"}},
		{name: "output is capped at 50 KB", content: strings.Repeat(strings.Repeat("x", 1000)+"\n", 100),
			want: []string{"(Output capped at 50 KB. Showing lines 1-", "Use offset="}, notWant: []string{"100: "}, truncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			p := e.write(t, "f.txt", tt.content)
			res, err := e.call(t, Read(), readParams{FilePath: p, Offset: tt.offset, Limit: tt.limit})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Output, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(res.Output, w) {
					t.Errorf("output has %q", w)
				}
			}
			if res.Metadata["truncated"] != tt.truncated {
				t.Errorf("truncated = %v, want %v", res.Metadata["truncated"], tt.truncated)
			}
			if len(res.Output) > readMaxBytes+1024 {
				t.Errorf("output is %d bytes, over the cap", len(res.Output))
			}
		})
	}
}

func TestReadPageCountsLinesOfAnyLength(t *testing.T) {
	t.Parallel()
	// Lines longer than the 64 KB read buffer, before, in and after the page.
	huge := strings.Repeat("y", 200<<10)
	content := huge + "\n" + "two\n" + huge + "\n" + "four\n" + huge
	pg, err := readPage(strings.NewReader(content), 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if pg.count != 5 || !pg.more || pg.lines() != 2 || string(pg.line(0)) != "two" {
		t.Fatalf("page = %d lines %q..., count %d, more %v; want lines 2-3 of 5", pg.lines(), pg.line(0), pg.count, pg.more)
	}
	if !strings.HasSuffix(string(pg.line(1)), readLineSuffix) {
		t.Errorf("the huge line was not cut")
	}
}

func TestReadMissingFileSuggestsNames(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	for _, n := range []string{"main.go", "main_test.go", "mian.txt", "other.md"} {
		e.write(t, "pkg/"+n, "x")
	}
	_, err := e.call(t, Read(), readParams{FilePath: "pkg/main"})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, w := range []string{"File not found:", "Did you mean one of these?", filepath.Join(e.dir, "pkg", "main.go"), filepath.Join(e.dir, "pkg", "main_test.go")} {
		if !strings.Contains(msg, w) {
			t.Errorf("error lacks %q:\n%s", w, msg)
		}
	}
	if strings.Contains(msg, "other.md") {
		t.Errorf("unrelated name suggested:\n%s", msg)
	}
	_, err = e.call(t, Read(), readParams{FilePath: "pkg/mian.go"})
	if err == nil || !strings.Contains(err.Error(), "main.go") {
		t.Errorf("a typo gets no suggestion: %v", err)
	}
	_, err = e.call(t, Read(), readParams{FilePath: "zzz/none"})
	if err == nil || strings.Contains(err.Error(), "Did you mean") {
		t.Errorf("missing directory: %v", err)
	}
}

func TestReadDecidesByContentNotName(t *testing.T) {
	t.Parallel()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
	jpeg := "\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01"
	gif := "GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!"
	webp := "RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00"
	bmp := "BM\x36\x00\x0c\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00"
	tiff := "II*\x00\x08\x00\x00\x00"
	avif := "\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf"
	heic := "\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"
	tests := []struct {
		name     string
		file     string
		content  string
		wantErr  string // substrings of the error, all of them
		wantMIME string // an attachment of this type
		wantText string // read as text, with this line
	}{
		{name: "a NUL byte means binary", file: "a.txt", content: "abc\x00def", wantErr: "Cannot read binary file"},
		{name: "mostly control characters means binary", file: "a.log", content: strings.Repeat("\x01\x02\x03a", 50), wantErr: "Cannot read binary file"},
		{name: "a real archive is refused by its content", file: "a.zip", content: "PK\x03\x04\x14\x00\x00\x00\x08\x00", wantErr: "Cannot read binary file"},
		{name: "a text file with an archive's extension is read as text", file: "notes.zip", content: "PK plain text\n", wantText: "1: PK plain text"},
		{name: "a text file named .bin or .dat is read as text", file: "table.dat", content: "1 2 3\n", wantText: "1: 1 2 3"},
		{name: "a PNG is an image attachment", file: "a.png", content: png, wantMIME: "image/png"},
		{name: "a JPEG named photo.bin is an image attachment", file: "photo.bin", content: jpeg, wantMIME: "image/jpeg"},
		{name: "a PNG named .jpg is attached as the PNG it is", file: "shot.jpg", content: png, wantMIME: "image/png"},
		{name: "a GIF without extension is attached", file: "anim", content: gif, wantMIME: "image/gif"},
		{name: "a WebP is attached", file: "a.webp", content: webp, wantMIME: "image/webp"},
		{name: "a PDF is an attachment", file: "doc.pdf", content: "%PDF-1.4\n", wantMIME: "application/pdf"},
		{name: "a PDF named .txt is still a PDF", file: "doc.txt", content: "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", wantMIME: "application/pdf"},
		{name: "a BMP is refused naming its type", file: "a.bmp", content: bmp, wantErr: "(content: BMP image)"},
		{name: "a TIFF is refused naming its type", file: "scan.tif", content: tiff, wantErr: "(content: TIFF image)"},
		{name: "an AVIF is refused naming its type", file: "a.avif", content: avif, wantErr: "(content: AVIF image)"},
		{name: "a HEIC named .jpg is refused naming its type", file: "IMG_1.jpg", content: heic, wantErr: "(content: HEIC image)"},
		{name: "a text file named .bmp is read as text", file: "notes.bmp", content: "BMW notes\n", wantText: "1: BMW notes"},
		{name: "a text file named .tiff is read as text", file: "notes.tiff", content: "hello\n", wantText: "1: hello"},
		{name: "a text file named .avif is read as text", file: "notes.avif", content: "hello\n", wantText: "1: hello"},
		{name: "a text file named .png is read as text", file: "notes.png", content: "hello\n", wantText: "1: hello"},
		{name: "a text file starting with GIF8 is read as text", file: "a.gif", content: "GIF89a is a format\n", wantText: "1: GIF89a is a format"},
		{name: "a truncated PNG header is not an image", file: "cut.png", content: "\x89PNG\r\n", wantText: "PNG"},
		{name: "an empty file named .png is an empty text file", file: "empty.png", content: "", wantText: "total 0 lines"},
		{name: "an SVG is read as text", file: "a.svg", content: "<svg/>\n", wantText: "1: <svg/>"},
		{name: "an SVG named .png is read as text", file: "icon.png", content: "<?xml version=\"1.0\"?>\n<svg/>\n", wantText: "2: <svg/>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			p := e.write(t, tt.file, tt.content)
			res, err := e.call(t, Read(), readParams{FilePath: p})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), p) {
					t.Fatalf("err = %v, want %q naming the file", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantMIME == "" {
				if len(res.Attachments) != 0 || !strings.Contains(res.Output, tt.wantText) {
					t.Fatalf("not read as text with %q: %+v", tt.wantText, res)
				}
				return
			}
			if len(res.Attachments) != 1 || res.Attachments[0].MIME != tt.wantMIME || !strings.HasPrefix(res.Attachments[0].URL, "data:"+tt.wantMIME+";base64,") {
				t.Fatalf("attachments = %+v", res.Attachments)
			}
			if res.Attachments[0].Filename != tt.file {
				t.Errorf("filename = %q, want %q", res.Attachments[0].Filename, tt.file)
			}
			if _, ok, _ := lookupStamp(context.Background(), e.tc, p); !ok {
				t.Error("an attached file is not stamped as read")
			}
		})
	}
}

// TestReadHugeFiles: the sniffer looks at the first 4 KB only, so a huge
// file costs no more to judge than a small one. Files are sparse.
func TestReadHugeFiles(t *testing.T) {
	t.Parallel()
	const huge = 64 << 20
	tests := []struct {
		name    string
		head    string
		wantErr string
		want    string
	}{
		{name: "a huge image is refused over the attachment limit", head: "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01", wantErr: "over the 20 MB limit"},
		{name: "a huge file whose start is text is paged", head: strings.Repeat("text line\n", 500), want: "500: text line"},
		{name: "a huge file of NULs is binary", head: "", wantErr: "Cannot read binary file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			p := e.write(t, "big", tt.head)
			if err := os.Truncate(p, huge); err != nil {
				t.Fatal(err)
			}
			res, err := e.call(t, Read(), readParams{FilePath: p, Limit: 500})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Output, tt.want) {
				t.Fatalf("output lacks %q", tt.want)
			}
		})
	}
}

func TestReadListsADirectory(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	e.write(t, "d/b.txt", "")
	e.write(t, "d/a.txt", "")
	e.write(t, "d/sub/c.txt", "")
	res, err := e.call(t, Read(), readParams{FilePath: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "<type>directory</type>\n<entries>\na.txt\nb.txt\nsub/\n\n(3 entries)\n</entries>") {
		t.Fatalf("output:\n%s", res.Output)
	}
	res, err = e.call(t, Read(), readParams{FilePath: "d", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "(Showing 2 of 3 entries. Use 'offset' parameter to read beyond entry 3)") {
		t.Fatalf("output:\n%s", res.Output)
	}
}

func TestReadAsksReadWithTheProjectRelativePath(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	e.write(t, "src/a.go", "package a\n")
	if _, err := e.call(t, Read(), readParams{FilePath: "src/a.go"}); err != nil {
		t.Fatal(err)
	}
	if len(e.asks) != 1 || e.asks[0].Permission != permissionRead || e.asks[0].Patterns[0] != "src/a.go" {
		t.Fatalf("asks = %+v", e.asks)
	}
	outside := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.call(t, Read(), readParams{FilePath: outside}); err != nil {
		t.Fatal(err)
	}
	var perms []string
	for _, a := range e.asks[1:] {
		perms = append(perms, a.Permission+" "+a.Patterns[0])
	}
	want := []string{"external_directory " + filepath.Join(filepath.Dir(outside), "*"), "read " + outside}
	if strings.Join(perms, "|") != strings.Join(want, "|") {
		t.Fatalf("asks = %v, want %v", perms, want)
	}
}

func TestReadDescriptionStatesTheLimits(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"2000 lines", "50 KB", "2000 characters"} {
		if !strings.Contains(readDescription(), w) {
			t.Errorf("description lacks %q", w)
		}
	}
}
