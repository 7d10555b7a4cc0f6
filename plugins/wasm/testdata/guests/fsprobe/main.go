// Command fsprobe tries to leave its allowed_paths mounts: one file-system
// operation per call, reported as the WASI errno it ended with, so the
// host's table test (fs_escape_test.go, testdata/wasm_escapes.json) can
// say what must happen. raw_open calls path_open itself, with a path the
// Go runtime would have cleaned; loop repeats reads and listings while the
// host swaps a directory for a link.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Args struct {
	Op   string `json:"op"`
	Path string `json:"path"`
	Arg  string `json:"arg,omitempty"`
	N    int    `json:"n,omitempty"`
}

type Out struct {
	Errno string         `json:"errno"`
	Data  string         `json:"data,omitempty"`
	Count map[string]int `json:"count,omitempty"`
}

var names = map[syscall.Errno]string{
	syscall.EPERM: "EPERM", syscall.EACCES: "EACCES", syscall.ENOENT: "ENOENT",
	syscall.EROFS: "EROFS", syscall.EBADF: "EBADF", syscall.EISDIR: "EISDIR",
	syscall.ENOTDIR: "ENOTDIR", syscall.ELOOP: "ELOOP", syscall.EEXIST: "EEXIST",
	syscall.EINVAL: "EINVAL", syscall.ENOTCAPABLE: "ENOTCAPABLE", syscall.ENOSYS: "ENOSYS",
	syscall.EIO: "EIO", syscall.ENOTEMPTY: "ENOTEMPTY",
}

func errnoName(err error) string {
	if err == nil {
		return "ok"
	}
	var e syscall.Errno
	if errors.As(err, &e) {
		if n, ok := names[e]; ok {
			return n
		}
		return fmt.Sprintf("errno %d", uint32(e))
	}
	return err.Error()
}

func list(p string) (string, error) {
	ents, err := os.ReadDir(p)
	var out []string
	for _, e := range ents {
		t := "-"
		switch {
		case e.Type()&os.ModeSymlink != 0:
			t = "L"
		case e.IsDir():
			t = "d"
		}
		out = append(out, e.Name()+":"+t)
	}
	sort.Strings(out)
	return strings.Join(out, " "), err
}

//go:wasmimport wasi_snapshot_preview1 path_open
func pathOpen(dirFD int32, dirflags uint32, path *byte, pathLen uint32, oflags uint32, rightsBase uint64, rightsInheriting uint64, fdflags uint32, fd *int32) uint32

// rawOpen opens path relative to the directory dir with path_open, as a C
// guest could, and reads it.
func rawOpen(dir, path string) (string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return "", err
	}
	defer d.Close()
	b := []byte(path)
	if len(b) == 0 {
		b = []byte{0}
	}
	var fd int32
	const rightsRead = 1<<1 | 1<<14 // fd_read, fd_readdir
	if e := pathOpen(int32(d.Fd()), 1 /* follow links */, &b[0], uint32(len(path)), 0, rightsRead, rightsRead, 0, &fd); e != 0 {
		return "", syscall.Errno(e)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	data := make([]byte, 256)
	n, err := f.Read(data)
	return string(data[:n]), err
}

func do(a Args) (string, error) {
	switch a.Op {
	case "read":
		b, err := os.ReadFile(a.Path)
		return string(b), err
	case "list":
		return list(a.Path)
	case "stat":
		fi, err := os.Stat(a.Path)
		if err != nil {
			return "", err
		}
		return fi.Mode().String(), nil
	case "lstat":
		fi, err := os.Lstat(a.Path)
		if err != nil {
			return "", err
		}
		return fi.Mode().String(), nil
	case "readlink":
		return os.Readlink(a.Path)
	case "write":
		return "", os.WriteFile(a.Path, []byte("WRITTEN BY GUEST"), 0o644)
	case "append":
		f, err := os.OpenFile(a.Path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return "", err
		}
		defer f.Close()
		_, err = f.Write([]byte("APPENDED BY GUEST"))
		return "", err
	case "mkdir":
		return "", os.Mkdir(a.Path, 0o755)
	case "remove":
		return "", os.Remove(a.Path)
	case "rename":
		return "", os.Rename(a.Path, a.Arg)
	case "symlink":
		return "", os.Symlink(a.Arg, a.Path)
	case "link":
		return "", os.Link(a.Path, a.Arg)
	case "raw_open":
		return rawOpen(a.Path, a.Arg)
	}
	return "", fmt.Errorf("unknown op %q", a.Op)
}

var _ = tool.Main("Probe the file system.", func(ctx *tool.Context, a Args) (tool.Result, error) {
	var out Out
	if a.Op == "loop" {
		// Read a.Path and list a.Arg a.N times each; count outcomes and
		// report any data that came from outside.
		out.Count = map[string]int{}
		for i := 0; i < a.N; i++ {
			b, err := os.ReadFile(a.Path)
			out.Count["read "+errnoName(err)]++
			if strings.Contains(string(b), "OUTSIDE") && len(out.Data) < 300 {
				out.Data += "read:" + string(b) + ";"
			}
			names, err := list(a.Arg)
			out.Count["list "+errnoName(err)]++
			if strings.Contains(names, "sub:") && len(out.Data) < 300 {
				out.Data += "list:" + names + ";"
			}
			err = os.WriteFile(a.Arg+"/planted.txt", []byte("PLANTED"), 0o644)
			out.Count["write "+errnoName(err)]++
		}
		out.Errno = "ok"
	} else {
		data, err := do(a)
		out.Errno, out.Data = errnoName(err), data
	}
	b, _ := json.Marshal(out)
	return tool.Text(string(b)), nil
})

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 { return tool.ExportExecute("") }

func main() {}
