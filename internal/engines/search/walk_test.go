package search

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/fstree"
)

func walkRels(t *testing.T, root string, opts Options) []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	if _, err := walk(context.Background(), root, opts, func(_ int, e Entry) {
		mu.Lock()
		got = append(got, e.RelPath())
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

func TestWalkHonoursGitignore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{
			name: "a pattern without a slash matches names at any depth",
			files: map[string]string{
				".gitignore": "*.log\n", "a.go": "", "a.log": "", "sub/b.log": "", "sub/b.go": "",
			},
			want: []string{".gitignore", "a.go", "sub/b.go"},
		},
		{
			name: "a leading slash anchors the pattern to the file's directory",
			files: map[string]string{
				".gitignore": "/out\n", "out/x": "", "sub/out/y": "",
			},
			want: []string{".gitignore", "sub/out/y"},
		},
		{
			name: "a trailing slash matches directories only",
			files: map[string]string{
				".gitignore": "build/\n", "build/x": "", "src/build": "",
			},
			want: []string{".gitignore", "src/build"},
		},
		{
			name: "a nested gitignore applies relative to its own directory",
			files: map[string]string{
				"pkg/.gitignore": "/gen.go\n*.tmp\n", "pkg/gen.go": "", "pkg/a.go": "", "pkg/x/gen.go": "",
				"pkg/x/y.tmp": "", "gen.go": "", "top.tmp": "",
			},
			want: []string{"gen.go", "pkg/.gitignore", "pkg/a.go", "pkg/x/gen.go", "top.tmp"},
		},
		{
			name: "a deeper negation re-includes what a parent ignored",
			files: map[string]string{
				".gitignore": "*.txt\n", "a.txt": "", "keep/.gitignore": "!important.txt\n",
				"keep/important.txt": "", "keep/other.txt": "",
			},
			want: []string{".gitignore", "keep/.gitignore", "keep/important.txt"},
		},
		{
			name: "the last matching line wins",
			files: map[string]string{
				".gitignore": "*.md\n!README.md\n", "README.md": "", "NOTES.md": "",
			},
			want: []string{".gitignore", "README.md"},
		},
		{
			name: "double star matches across directories and comments are ignored",
			files: map[string]string{
				".gitignore": "# generated\ndocs/**/*.html\n", "docs/a/b/c.html": "", "docs/a.html": "", "docs/a.md": "", "x.html": "",
			},
			want: []string{".gitignore", "docs/a.md", "x.html"},
		},
		{
			name: "braces are literal as in git",
			files: map[string]string{
				".gitignore": "{a,b}.txt\n", "a.txt": "", "{a,b}.txt": "",
			},
			want: []string{".gitignore", "a.txt"},
		},
		{
			name: "the .git directory is never walked",
			files: map[string]string{
				".git/HEAD": "", ".git/objects/x": "", "main.go": "", ".hidden": "",
			},
			want: []string{".hidden", "main.go"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := fstree.Write(t, tt.files)
			if got := walkRels(t, root, Options{}); !slices.Equal(got, tt.want) {
				t.Errorf("walk = %q, want %q", got, tt.want)
			}
		})
	}
}

// .ignore files and .git/info/exclude are read the way ripgrep reads
// them: .ignore with or without git and before .gitignore at any depth,
// exclude after both, relative to the repository's top.
func TestWalkHonoursIgnoreFilesAndTheRepositorysExclude(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{
			name:  "a .ignore file applies without git",
			files: map[string]string{".ignore": "*.log\n", "a.go": "", "a.log": "", "sub/b.log": ""},
			want:  []string{".ignore", "a.go"},
		},
		{
			name:  "a nested .ignore applies relative to its directory",
			files: map[string]string{"pkg/.ignore": "/gen.go\n", "pkg/gen.go": "", "pkg/x/gen.go": "", "gen.go": ""},
			want:  []string{"gen.go", "pkg/.ignore", "pkg/x/gen.go"},
		},
		{
			name: "a .ignore negation beats a deeper .gitignore",
			files: map[string]string{
				".ignore": "!keep.txt\n", "sub/.gitignore": "*.txt\n", "sub/keep.txt": "", "sub/drop.txt": "",
			},
			want: []string{".ignore", "sub/.gitignore", "sub/keep.txt"},
		},
		{
			name: "a .ignore rule beats a .gitignore negation in the same directory",
			files: map[string]string{
				".gitignore": "!secret.txt\n", ".ignore": "secret.txt\n", "secret.txt": "", "a.txt": "",
			},
			want: []string{".gitignore", ".ignore", "a.txt"},
		},
		{
			name: "the repository's exclude file applies from its top",
			files: map[string]string{
				".git/HEAD": "", ".git/info/exclude": "# local\n/scratch/\n*.bak\n", "scratch/x": "", "sub/scratch/y": "",
				"a.bak": "", "sub/b.bak": "", "a.go": "",
			},
			want: []string{"a.go", "sub/scratch/y"},
		},
		{
			name: "a .gitignore negation beats the exclude file",
			files: map[string]string{
				".git/HEAD": "", ".git/info/exclude": "*.bak\n", ".gitignore": "!keep.bak\n", "keep.bak": "", "drop.bak": "",
			},
			want: []string{".gitignore", "keep.bak"},
		},
		{
			name: "a nested repository's exclude applies to it alone",
			files: map[string]string{
				"vendor/lib/.git/HEAD": "", "vendor/lib/.git/info/exclude": "*.o\n", "vendor/lib/a.o": "", "b.o": "",
			},
			want: []string{"b.o"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := fstree.Write(t, tt.files)
			if got := walkRels(t, root, Options{}); !slices.Equal(got, tt.want) {
				t.Errorf("walk = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWalkReadsTheIgnoreFilesAboveASearchedSubdirectory(t *testing.T) {
	t.Parallel()
	repo := fstree.Write(t, map[string]string{
		".git/HEAD": "", ".git/info/exclude": "*.tmp\n", ".ignore": "*.cache\n",
		"sub/a.go": "", "sub/a.tmp": "", "sub/a.cache": "",
	})
	if got, want := walkRels(t, filepath.Join(repo, "sub"), Options{}), []string{"a.go"}; !slices.Equal(got, want) {
		t.Errorf("walk of a subdirectory = %q, want %q", got, want)
	}
	// Without git, ancestors' .ignore files still count; .gitignore files
	// do not, as git would not read them.
	plain := fstree.Write(t, map[string]string{".ignore": "*.cache\n", ".gitignore": "*.go\n", "sub/a.go": "", "sub/a.cache": ""})
	if got, want := walkRels(t, filepath.Join(plain, "sub"), Options{}), []string{"a.go"}; !slices.Equal(got, want) {
		t.Errorf("walk of a subdirectory outside git = %q, want %q", got, want)
	}
	if got, want := walkRels(t, plain, Options{NoIgnore: true}), []string{".gitignore", ".ignore", "sub/a.cache", "sub/a.go"}; !slices.Equal(got, want) {
		t.Errorf("walk without ignore files = %q, want %q", got, want)
	}
}

func TestWalkReadsTheGitignoreOfTheEnclosingRepository(t *testing.T) {
	t.Parallel()
	repo := fstree.Write(t, map[string]string{
		".git/HEAD": "", ".gitignore": "*.gen\nsub/skip/\n", "sub/a.go": "", "sub/a.gen": "", "sub/skip/x": "",
	})
	got := walkRels(t, filepath.Join(repo, "sub"), Options{})
	// sub/skip is anchored to the repository root; searching sub must still
	// leave it out.
	want := []string{"a.go"}
	if !slices.Equal(got, want) {
		t.Errorf("walk of a subdirectory = %q, want %q", got, want)
	}
}

func TestWalkUsesEveryWorkerIndexWithinRange(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 200 {
		files[filepath.Join("d"+string(rune('a'+i%20)), "f"+string(rune('a'+i/20))+".txt")] = "x"
	}
	root := fstree.Write(t, files)
	var mu sync.Mutex
	count := 0
	_, err := walk(context.Background(), root, Options{Workers: 4}, func(w int, _ Entry) {
		if w < 0 || w >= 4 {
			t.Errorf("worker index %d out of range", w)
		}
		mu.Lock()
		count++
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if count != 200 {
		t.Errorf("visited %d files, want 200", count)
	}
}

func TestWalkStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	root := fstree.Write(t, map[string]string{"a/b/c.txt": "", "d.txt": ""})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := walk(ctx, root, Options{}, func(int, Entry) {}); err != context.Canceled {
		t.Errorf("walk with a cancelled context = %v, want context.Canceled", err)
	}
}
