package pgstore

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestTheEmbeddedMigrationsRunFromOneWithoutGaps(t *testing.T) {
	t.Parallel()
	all, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 || all[0].version != 1 {
		t.Fatalf("migrations = %v", all)
	}
}

func TestMigrationSetsThatCouldSkipOrRepeatAVersionAreRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		files []string
		want  string
	}{
		{"a gap", []string{"0001_a.sql", "0003_c.sql"}, "version 3, want 2"},
		{"a repeat", []string{"0001_a.sql", "0001_b.sql"}, "version 1, want 2"},
		{"not starting at one", []string{"0002_a.sql"}, "version 2, want 1"},
		{"version zero", []string{"0000_a.sql"}, "NNNN_what.sql"},
		{"no underscore", []string{"0001.sql"}, "NNNN_what.sql"},
		{"a short number", []string{"1_a.sql"}, "NNNN_what.sql"},
		{"a negative number", []string{"-001_a.sql"}, "NNNN_what.sql"},
		{"letters", []string{"abcd_a.sql"}, "NNNN_what.sql"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range c.files {
				fsys["m/"+f] = &fstest.MapFile{Data: []byte("SELECT 1;")}
			}
			_, err := parseMigrations(fsys, "m")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("parse %v = %v; want an error containing %q", c.files, err, c.want)
			}
		})
	}
}

func TestTheSchemaIsTheFirstSearchPathEntryAsPostgreSQLReadsIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ list, want string }{
		{"toolhost", "toolhost"},
		{"Toolhost_Custom, public", "toolhost_custom"},
		{`  "My Schema" , public`, "My Schema"},
		{`"q""uote"`, `q"uote`},
		{`"$user", public`, "$user"},
		{"", ""},
		{`"unterminated`, ""},
		{`""`, ""},
		{"a b", ""},
	} {
		got, _ := firstIdentifier(c.list)
		if got != c.want {
			t.Errorf("firstIdentifier(%q) = %q; want %q", c.list, got, c.want)
		}
	}
}
