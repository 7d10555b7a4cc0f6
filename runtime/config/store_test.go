package config

import (
	"strings"
	"testing"
	"time"
)

func TestStoreSettingsTakeTheEnvironmentOverTheFileAndDefaultTheRest(t *testing.T) {
	t.Parallel()
	no := false
	for _, c := range []struct {
		name    string
		store   Store
		env     map[string]string
		want    StoreSettings
		wantErr string
	}{
		{name: "nothing set gives the defaults", want: StoreSettings{Migrate: true, Retention: DefaultStoreRetention, StartWait: DefaultStoreStartWait}},
		{name: "the file turns migration off and sets durations",
			store: Store{URL: "postgres://h/db", Migrate: &no, Retention: "24h", StartWait: "0"},
			want:  StoreSettings{URL: "postgres://h/db", Retention: 24 * time.Hour}},
		{name: "the environment wins over the file",
			store: Store{URL: "postgres://file/db", ListenURL: "postgres://file-listen/db"},
			env:   map[string]string{EnvStoreURL: "postgres://env/db", EnvStoreListenURL: "postgres://env-listen/db", EnvStoreMigrate: "false"},
			want:  StoreSettings{URL: "postgres://env/db", ListenURL: "postgres://env-listen/db", Retention: DefaultStoreRetention, StartWait: DefaultStoreStartWait}},
		{name: "retention 0 keeps state forever", store: Store{Retention: "0"}, want: StoreSettings{Migrate: true, StartWait: DefaultStoreStartWait}},
		{name: "a migrate variable that is no boolean is refused", env: map[string]string{EnvStoreMigrate: "nope"}, wantErr: "TOOLHOST_STORE_MIGRATE"},
		{name: "a negative retention is refused", store: Store{Retention: "-1h"}, wantErr: "store.retention"},
		{name: "a retention without a unit is refused", store: Store{Retention: "30"}, wantErr: "store.retention"},
		{name: "a retention shorter than an hour is refused", store: Store{Retention: "10m"}, wantErr: "at least 1h0m0s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := &Config{Store: c.store}
			got, err := cfg.StoreSettings(func(k string) string { return c.env[k] })
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("settings = %+v, %v; want an error naming %s", got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("settings = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}
