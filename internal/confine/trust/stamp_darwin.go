package trust

import "syscall"

// changeTime is st's change time.
func changeTime(st *syscall.Stat_t) (sec, nsec int64) {
	return int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec)
}
