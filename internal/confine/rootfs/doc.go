// Package rootfs is the file system a wasm guest sees through an
// allowed_paths grant: a wazero experimental/sys.FS whose every path is
// resolved inside one host directory by an os.Root.
//
// Why os.Root and not path cleaning: wazero's own sysfs.DirFS joins the
// guest's path onto the host directory and hands the string to the kernel,
// so a symbolic link inside the mount ("data/lnk -> /outside", or a
// relative "../../x") takes the guest anywhere the host process can go —
// and cleaning the path text first cannot help, because the escape is in
// the file system, not in the text, and a directory can be swapped for a
// link between any check and the open. os.Root walks the path one
// component at a time from a directory descriptor (openat with
// O_NOFOLLOW, the userspace equivalent of openat2's RESOLVE_BENEATH): a
// link is followed only when where it leads stays beneath the root,
// absolute links are never followed, and because each step is relative to
// a descriptor already held, a link swapped in during the walk is seen and
// judged like any other. The kernel, not a string comparison, has the last
// word.
//
// What it guarantees: no operation of FS or of a File it opened reads,
// writes, lists, creates, renames, removes or changes the metadata of
// anything outside the directory given to New, whatever links exist or
// appear while it runs; an escape is refused with EPERM. Links the guest
// creates must be relative and lead inside (EPERM otherwise), so the
// mount never holds a guest-made link that would mislead an unconfined
// host tool. A read-only FS (NewReadOnly) refuses every change with EROFS
// and opens files read-only, so the kernel refuses writes through them as
// well (EBADF). What it does not cover (os.Root's own caveats): bind
// mounts and /proc-style magic links inside the directory, device files,
// and Chmod/Utimens by path acting on a link swapped in at the last
// component (the link itself, still inside).
//
// A writable FS mounted beside read-only ones of folders inside it
// ("/proj" and "ro:/proj/locked", WithReadOnly) refuses, with EROFS, any
// change that would land in a read-only folder through a link (relative,
// a chain, one the guest made, or one swapped in while it runs): the
// folder a change happens in is judged by walking up its open descriptor's
// ".." — where the kernel says it is — and a final link is followed by
// hand so its folder is judged too. A file with more than one name is not
// opened for writing (EPERM), since its other name may be read-only, and
// a read-only folder, or one holding it, is not renamed or removed
// (guard.go). On systems without openat this FS refuses every change.
//
// Directories are listed from their open descriptor (getdents and
// fstatat), so a listing shows a link as a link and never follows it.
//
// It must not import anything of toolhost: package wasm (plugins/wasm) mounts it.
package rootfs
