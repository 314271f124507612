package engine

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
)

// TestNoNetwork: a program started with NoNetwork reaches no host, not even this one; the
// same program without it does.
func TestNoNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	connect := fmt.Sprintf("import socket; socket.create_connection(('127.0.0.1', %d), timeout=5).close()", ln.Addr().(*net.TCPAddr).Port)
	if _, stderr, err := Exec(context.Background(), Command{Name: "python3", Args: []string{"-c", connect}}); err != nil {
		t.Fatalf("without NoNetwork: %v %s", err, stderr)
	}
	if accepted.Load() != 1 {
		t.Fatalf("the listener saw %d connections without NoNetwork", accepted.Load())
	}
	_, stderr, err := Exec(context.Background(), Command{Name: "python3", Args: []string{"-c", connect}, NoNetwork: true})
	if err == nil {
		t.Fatal("connected with NoNetwork")
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("the listener saw %d connections, want 1", n)
	}
	t.Logf("with NoNetwork: %v %s", err, stderr)
}
