package config

import (
	"fmt"
	"strconv"
	"time"
)

// Environment variables that override the store's other settings.
const (
	EnvStoreListenURL = "TOOLHOST_STORE_LISTEN_URL"
	EnvStoreMigrate   = "TOOLHOST_STORE_MIGRATE"
)

// Defaults of the store's durations.
const (
	DefaultStoreRetention = 30 * 24 * time.Hour
	DefaultStoreStartWait = 30 * time.Second
)

// StoreSettings are the store's settings in effect, the environment over
// the config, defaults filled in.
type StoreSettings struct {
	URL, ListenURL string
	Migrate        bool
	Retention      time.Duration // 0: keep forever
	StartWait      time.Duration
}

// StoreSettings returns the settings in effect; env may be nil. Values
// that do not parse are errors naming the key (validate refuses them in
// files; the environment is read here).
func (c *Config) StoreSettings(env func(string) string) (StoreSettings, error) {
	if env == nil {
		env = func(string) string { return "" }
	}
	st := StoreSettings{URL: c.StoreURL(env), ListenURL: c.Store.ListenURL, Migrate: true, Retention: DefaultStoreRetention, StartWait: DefaultStoreStartWait}
	if u := env(EnvStoreListenURL); u != "" {
		st.ListenURL = u
	}
	if c.Store.Migrate != nil {
		st.Migrate = *c.Store.Migrate
	}
	if v := env(EnvStoreMigrate); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return st, fmt.Errorf("%s=%q: want true or false", EnvStoreMigrate, v)
		}
		st.Migrate = b
	}
	var err error
	if st.Retention, err = storeRetention(c.Store.Retention); err != nil {
		return st, fmt.Errorf("store.retention %w", err)
	}
	if st.StartWait, err = storeDuration(c.Store.StartWait, DefaultStoreStartWait); err != nil {
		return st, fmt.Errorf("store.start_wait %w", err)
	}
	return st, nil
}

// MinStoreRetention is the shortest retention allowed: a shorter one
// would forget a session while a person considers a question (a parked
// call waits up to 15 minutes) or between an agent's turns.
const MinStoreRetention = time.Hour

func storeRetention(s string) (time.Duration, error) {
	d, err := storeDuration(s, DefaultStoreRetention)
	if err == nil && d > 0 && d < MinStoreRetention {
		return 0, fmt.Errorf("%q: want at least %s (or \"0\" to keep sessions forever); a shorter one forgets sessions still in use", s, MinStoreRetention)
	}
	return d, err
}

func storeDuration(s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want a duration such as \"720h\" or \"30s\", or \"0\"", s)
	}
	return d, nil
}
