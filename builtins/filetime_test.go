package builtins

import (
	"encoding/json"
	"testing"
	"time"
)

// TestAReadStampIsWrittenAsJSONMarshalWritesIt holds the hand-written
// encoding of a read stamp to encoding/json's, which decodes it.
func TestAReadStampIsWrittenAsJSONMarshalWritesIt(t *testing.T) {
	t.Parallel()
	zone := time.FixedZone("odd", -(3*3600 + 30*60))
	for _, st := range []readStamp{
		{},
		{MTime: time.Date(2026, 11, 26, 16, 21, 55, 123456789, time.UTC), Size: 10240, ReadAt: time.Date(2026, 11, 26, 16, 21, 56, 0, time.Local)},
		{MTime: time.Date(1, 1, 1, 0, 0, 0, 1, zone), Size: -1, ReadAt: time.Date(9999, 12, 31, 23, 59, 59, 999999999, zone)},
		{MTime: time.Now(), Size: 1 << 62, ReadAt: time.Now().Round(0)},
	} {
		want, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.appendJSON(nil)
		if err != nil || string(got) != string(want) {
			t.Errorf("appendJSON = %s, %v; json.Marshal = %s", got, err, want)
		}
	}
	// A year past 9999 is no RFC 3339 time: an error, as from json.Marshal.
	bad := readStamp{MTime: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := bad.appendJSON(nil); err == nil {
		t.Error("a stamp of the year 10000 was written")
	}
}
