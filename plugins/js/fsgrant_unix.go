//go:build unix

package js

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openDirNoFollow opens dir (a grant's real folder) and then each of
// names below it, every step relative to the descriptor of the one
// before and with O_NOFOLLOW: a name that is (or became) a link fails
// instead of being followed. With mkdir set, a missing name is made
// first. The caller closes the descriptor returned.
func openDirNoFollow(dir string, names []string, mkdir bool) (int, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	for _, name := range names {
		if mkdir {
			if err := unix.Mkdirat(fd, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				unix.Close(fd)
				return -1, fmt.Errorf("make folder %s: %w", name, err)
			}
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			link := errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) && isLink(fd, name)
			unix.Close(fd)
			if link {
				return -1, fmt.Errorf("%s: %w", name, errLinkInWay)
			}
			return -1, fmt.Errorf("%s: %w", name, err)
		}
		unix.Close(fd)
		fd = next
	}
	return fd, nil
}

// isLink reports whether name in the folder dirfd is a symbolic link
// (some systems answer O_DIRECTORY|O_NOFOLLOW on a link with ENOTDIR).
func isLink(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// mkdirNoFollow makes rel and its missing parents below dir, following no
// link: a link anywhere on the way — even one swapped in while it runs —
// fails the call rather than leading the new folder elsewhere.
func mkdirNoFollow(dir, rel string) error {
	fd, err := openDirNoFollow(dir, components(rel), true)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// writeNoFollow replaces the contents of rel below dir with data (making
// the file if missing), following no link on the way or at the file
// itself, and refusing a file that is not regular or has more than one
// name: the open is checked, not a Stat before it, so a swap in between
// changes nothing.
func writeNoFollow(dir, rel string, data []byte) error {
	names := components(rel)
	if len(names) == 0 {
		return errors.New("is a folder granted to the tool, not a file")
	}
	dfd, err := openDirNoFollow(dir, names[:len(names)-1], false)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	base := names[len(names)-1]
	fd, err := unix.Openat(dfd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o644)
	switch {
	case errors.Is(err, unix.ELOOP):
		return errLinkInWay
	case errors.Is(err, unix.ENXIO): // a FIFO nothing reads
		return errNotRegular
	case err != nil:
		return err
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return errNotRegular
	}
	if st.Nlink > 1 {
		return errLinked
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Close()
}
