package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/papierkram/papierkram/fault"
)

// Command describes a program to run.
type Command struct {
	Name      string
	Args      []string
	Stdin     io.Reader
	Env       []string // added to a minimal environment (PATH, HOME, LANG)
	Dir       string
	MaxOutput int64 // bytes kept of stdout and of stderr each; default 64 MiB
	// ExtraFiles are open files the program gets as descriptors 3, 4, ... (a browser's
	// DevTools pipes).
	ExtraFiles []*os.File
	// Credential runs the program as another user (a root server starting its browser as
	// an unprivileged one); nil keeps the server's own.
	Credential *syscall.Credential
	// NoNetwork starts the program in a new, empty network namespace (no interface but a
	// down loopback): it can reach no host, not even this one. Filesystem unix sockets
	// still work. Starting fails where the kernel refuses namespaces.
	NoNetwork bool
}

// waitDelay is how long a killed program's pipes may stay open before Wait gives up on them.
const waitDelay = 2 * time.Second

func (c Command) cmd(ctx context.Context) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	cmd.Dir = c.Dir
	cmd.Stdin = c.Stdin
	cmd.Env = append(baseEnv(), c.Env...)
	// Its own process group, so a kill reaches the children it starts too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if c.NoNetwork {
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWNET
		if uid, gid := os.Geteuid(), os.Getegid(); uid != 0 {
			// Without root, a new user namespace (ids mapped to our own) allows the new
			// network namespace.
			cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
			cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		}
	}
	cmd.SysProcAttr.Credential = c.Credential
	cmd.ExtraFiles = c.ExtraFiles
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
	cmd.WaitDelay = waitDelay
	return cmd
}

// baseEnv keeps programs from inheriting secrets in the server's environment.
func baseEnv() []string {
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}
	if home := os.Getenv("HOME"); home != "" {
		env = append(env, "HOME="+home)
	}
	return env
}

func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return p.Kill()
	}
	return nil
}

// limitedBuffer keeps the first max bytes written and counts the rest.
type limitedBuffer struct {
	buf     bytes.Buffer
	max     int64
	dropped int64
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	room := b.max - int64(b.buf.Len())
	if room <= 0 {
		b.dropped += int64(len(p))
		return len(p), nil
	}
	if int64(len(p)) > room {
		b.buf.Write(p[:room])
		b.dropped += int64(len(p)) - room
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Exec runs a program to completion in its own process group. When ctx ends, the whole group
// is killed. A program that is not installed is fault.EngineUnavailable, one killed by ctx's
// deadline fault.Timeout; a non-zero exit is an *ExitError with the tail of its stderr.
func Exec(ctx context.Context, c Command) (stdout, stderr []byte, err error) {
	max := c.MaxOutput
	if max <= 0 {
		max = 64 << 20
	}
	out, errb := &limitedBuffer{max: max}, &limitedBuffer{max: max}
	cmd := c.cmd(ctx)
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, nil, fault.Wrap(fault.EngineUnavailable, err, "%s is not installed on this server", c.Name)
		}
		return nil, nil, fault.Wrap(fault.EngineUnavailable, err, "%s cannot be started", c.Name)
	}
	err = cmd.Wait()
	stdout, stderr = out.buf.Bytes(), errb.buf.Bytes()
	if err == nil {
		return stdout, stderr, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return stdout, stderr, fault.Wrap(fault.Timeout, err, "%s ran over its time limit and was stopped", c.Name)
		}
		return stdout, stderr, fault.Wrap(fault.Canceled, err, "%s was stopped: the request ended", c.Name)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stdout, stderr, &ExitError{Program: c.Name, Code: ee.ExitCode(), Stderr: tail(stderr, 2000)}
	}
	return stdout, stderr, fmt.Errorf("%s: %w", c.Name, err)
}

// ExitError is a program that ended with a non-zero status. Engine packages map it to a
// domain code (a damaged input, mostly); on its own it is an internal error.
type ExitError struct {
	Program string
	Code    int
	Stderr  string
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("%s exited with status %d: %s", e.Program, e.Code, strings.TrimSpace(e.Stderr))
}

// LastLine is the last line of a program's output (its stderr), for an error message.
func LastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// Child is a long-running program started by StartProcess.
type Child struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// StartProcess starts a long-running program in its own process group. Its output goes to
// stdout and stderr (io.Discard when nil). The program runs until Kill or until it exits;
// ctx only bounds the start.
func StartProcess(ctx context.Context, c Command, stdout, stderr io.Writer) (*Child, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Not CommandContext's ctx: the child outlives the call that starts it.
	cmd := c.cmd(context.Background())
	cmd.Cancel = nil
	// If the server dies without stopping its engines (a crash, kill -9), the kernel kills
	// the child too, so no browser or office process is left behind.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, fault.Wrap(fault.EngineUnavailable, err, "%s is not installed on this server", c.Name)
		}
		return nil, fault.Wrap(fault.EngineUnavailable, err, "%s cannot be started", c.Name)
	}
	ch := &Child{cmd: cmd, done: make(chan struct{})}
	go func() {
		ch.err = cmd.Wait()
		close(ch.done)
	}()
	return ch, nil
}

// Pid is the child's process id (and its process group id).
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Done is closed when the child has exited.
func (c *Child) Done() <-chan struct{} { return c.done }

// Exited reports whether the child has exited.
func (c *Child) Exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// Err is the child's exit error, once Done is closed.
func (c *Child) Err() error { <-c.done; return c.err }

// Kill kills the child's whole process group and waits for it.
func (c *Child) Kill() error {
	killGroup(c.cmd.Process)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		return fmt.Errorf("engine: %s (pid %d) did not exit after SIGKILL", c.cmd.Path, c.Pid())
	}
	return nil
}

// Memory is the anonymous resident memory of the child and its descendants in bytes (a
// browser's renderers, an office suite's helpers): see treeMemory.
func (c *Child) Memory() (int64, error) { return treeMemory(c.Pid()) }
