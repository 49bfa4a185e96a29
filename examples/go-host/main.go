// A Go program as an MCP host, with the Go standard library only: it spawns `mcpwire serve`
// (the configured MCP servers behind one MCP server, over stdio), initializes, lists the tools
// of every server, calls one with progress, and cancels another while it runs. mcpwire keeps
// doing config, trust, OAuth, reconnects, retries, permissions and redaction.
//
//	go run . [-progress <tool>] [-slow <tool>] [-- <gateway command…>]
//
// The gateway command defaults to `mcpwire serve`; for a checkout: `-- node dist/cli/main.js
// serve --config my-config.json`. -progress/-slow pick tools whose name contains that text
// (the scripted mock's `progress` and `slow` tools by default).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

type message struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *rpcError        `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// client speaks newline-delimited JSON-RPC to the gateway's stdin/stdout.
type client struct {
	mu       sync.Mutex
	stdin    io.WriteCloser
	nextID   int
	pending  map[int]chan message
	progress map[string]func(progress, total float64, msg string)
}

func (c *client) write(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.stdin.Write(append(line, '\n'))
	return err
}

// send writes a request and returns its id and the channel its response arrives on.
func (c *client) send(method string, params any) (int, chan message, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	return id, ch, c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

func (c *client) call(method string, params any, out any) error {
	_, ch, err := c.send(method, params)
	if err != nil {
		return err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return errors.New("the gateway closed the connection")
		}
		if m.Error != nil {
			return m.Error
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s: no answer within 60 s", method)
	}
}

func (c *client) notify(method string, params any) error {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	return c.write(m)
}

// read dispatches every line the gateway writes: responses to their caller, progress to its
// listener; a request from the gateway (sampling, elicitation, roots) is refused, since this
// host declared none of them.
func (c *client) read(stdout io.Reader) {
	scanner := bufio.NewScanner(stdout)
	scanner.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for scanner.Scan() {
		var m message
		if err := json.Unmarshal(scanner.Bytes(), &m); err != nil {
			fmt.Fprintf(os.Stderr, "go-host: not JSON on stdout: %q\n", scanner.Text())
			continue
		}
		switch {
		case m.Method != "" && m.ID != nil:
			_ = c.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not supported by go-host"}})
		case m.Method == "notifications/progress":
			var p struct {
				Token    any     `json:"progressToken"`
				Progress float64 `json:"progress"`
				Total    float64 `json:"total"`
				Message  string  `json:"message"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				c.mu.Lock()
				f := c.progress[fmt.Sprint(p.Token)]
				c.mu.Unlock()
				if f != nil {
					f(p.Progress, p.Total, p.Message)
				}
			}
		case m.Method != "":
			fmt.Printf("notification: %s\n", m.Method)
		case m.ID != nil:
			var id int
			if json.Unmarshal(*m.ID, &id) == nil {
				c.mu.Lock()
				ch := c.pending[id]
				delete(c.pending, id)
				c.mu.Unlock()
				if ch != nil {
					ch <- m
				}
			}
		}
	}
	c.mu.Lock()
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

type tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (r callResult) text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, " ")
}

func find(tools []tool, part string) string {
	for _, t := range tools {
		if strings.Contains(t.Name, part) {
			return t.Name
		}
	}
	return ""
}

func run() error {
	progressTool := flag.String("progress", "_progress", "call the first tool whose name contains this, with progress")
	slowTool := flag.String("slow", "_slow", "call the first tool whose name contains this, then cancel it")
	flag.Parse()
	command := flag.Args()
	if len(command) == 0 {
		command = []string{"mcpwire", "serve"}
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = os.Stderr // the gateway logs there; stdout is the protocol only
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start %v: %w", command, err)
	}
	c := &client{stdin: stdin, pending: map[int]chan message{}, progress: map[string]func(float64, float64, string){}}
	go c.read(stdout)
	defer func() {
		// Shutdown over stdio: close the gateway's stdin, then wait for it to exit.
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()

	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	err = c.call("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "go-host", "version": "1.0.0"},
	}, &init)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := c.notify("notifications/initialized", nil); err != nil {
		return err
	}
	fmt.Printf("initialized: %s %s, protocol %s\n", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion)

	var tools []tool
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page struct {
			Tools      []tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := c.call("tools/list", params, &page); err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	fmt.Printf("tools: %d\n", len(tools))
	for _, t := range tools {
		fmt.Printf("  %s\n", t.Name)
	}

	if name := find(tools, *progressTool); name != "" {
		c.mu.Lock()
		c.progress["go-progress-1"] = func(p, total float64, msg string) { fmt.Printf("progress: %g/%g %s\n", p, total, msg) }
		c.mu.Unlock()
		var out callResult
		err := c.call("tools/call", map[string]any{
			"name":      name,
			"arguments": map[string]any{"steps": 3, "intervalMs": 50},
			"_meta":     map[string]any{"progressToken": "go-progress-1"},
		}, &out)
		if err != nil {
			return fmt.Errorf("tools/call %s: %w", name, err)
		}
		fmt.Printf("result of %s: %s (isError %v)\n", name, out.text(), out.IsError)
	}

	if name := find(tools, *slowTool); name != "" {
		id, ch, err := c.send("tools/call", map[string]any{"name": name, "arguments": map[string]any{"ms": 30000}})
		if err != nil {
			return err
		}
		time.Sleep(300 * time.Millisecond)
		if err := c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "go-host changed its mind"}); err != nil {
			return err
		}
		// A cancelled request gets no response: a ping still answers, the call stays silent.
		if err := c.call("ping", map[string]any{}, nil); err != nil {
			return fmt.Errorf("ping after cancel: %w", err)
		}
		select {
		case m := <-ch:
			return fmt.Errorf("the cancelled call was answered anyway: %s", string(m.Result))
		case <-time.After(500 * time.Millisecond):
			fmt.Printf("cancelled %s: no response, as the spec says\n", name)
		}
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "go-host: %v\n", err)
		os.Exit(1)
	}
}
