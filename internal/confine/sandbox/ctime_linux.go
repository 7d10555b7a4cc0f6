package sandbox

import "syscall"

func statCtime(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
