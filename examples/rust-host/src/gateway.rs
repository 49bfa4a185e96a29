//! The client side of `mcpwire serve` over stdio: newline-delimited JSON-RPC on the gateway's
//! stdin/stdout. One reader thread takes every line the gateway writes and hands a response to
//! the caller waiting for its id, a progress notification to the listener of its token, and
//! refuses a request from the gateway (sampling, elicitation, roots: this host declared none).
//! Its stderr is the gateway's log and is passed through; stdout carries MCP messages only.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// A line from the gateway longer than this is skipped, never buffered whole.
const MAX_LINE: usize = 16 * 1024 * 1024;
/// How long `call` waits for an answer (the gateway bounds each tool call itself too).
const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long `close` waits for the gateway to exit after its stdin closed, before killing it.
const EXIT_TIMEOUT: Duration = Duration::from_secs(10);

/// Called with the `params` of each `notifications/progress` that carries its token.
pub type ProgressFn = Box<dyn Fn(&Value) + Send>;

type Writer = Arc<Mutex<Option<ChildStdin>>>;

#[derive(Default)]
struct Shared {
    pending: HashMap<u64, Sender<Value>>,
    progress: HashMap<String, ProgressFn>,
    closed: bool,
}

/// `mcpwire serve` as a child process, spoken to as an MCP client.
pub struct Gateway {
    child: Child,
    stdin: Writer,
    shared: Arc<Mutex<Shared>>,
    next_id: u64,
    reader: Option<JoinHandle<()>>,
    exited: Option<ExitStatus>,
}

impl Gateway {
    /// Starts `command` (e.g. `mcpwire serve`) with piped stdin/stdout and the reader thread, in
    /// `workspace` when given: the gateway serves the servers of that directory's project config
    /// (those the user trusted) over the user's own.
    pub fn spawn(command: &[String], workspace: Option<&Path>) -> Result<Gateway, String> {
        let (program, args) = command.split_first().ok_or("no gateway command")?;
        let mut cmd = Command::new(program);
        if let Some(dir) = workspace {
            cmd.current_dir(dir);
        }
        let mut child = cmd
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {:?}: {}", command, e))?;
        let stdin: Writer = Arc::new(Mutex::new(child.stdin.take()));
        let stdout = child.stdout.take().ok_or("the gateway's stdout is not piped")?;
        let shared = Arc::new(Mutex::new(Shared::default()));
        let reader = {
            let (stdin, shared) = (stdin.clone(), shared.clone());
            thread::spawn(move || read_loop(BufReader::new(stdout), &stdin, &shared))
        };
        Ok(Gateway { child, stdin, shared, next_id: 0, reader: Some(reader), exited: None })
    }

    /// Writes a request; returns its id and the channel its response (the whole message) comes on.
    pub fn send(&mut self, method: &str, params: Value) -> Result<(u64, Receiver<Value>), String> {
        self.next_id += 1;
        let id = self.next_id;
        let (tx, rx) = mpsc::channel();
        {
            let mut shared = self.shared.lock().unwrap();
            if shared.closed {
                return Err(format!("{}: the gateway closed the connection", method));
            }
            shared.pending.insert(id, tx);
        }
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        if let Err(e) = write_line(&self.stdin, &request) {
            self.forget(id);
            return Err(format!("{}: {}", method, e));
        }
        Ok((id, rx))
    }

    /// A request and its result; a JSON-RPC error, a closed gateway or no answer in time is `Err`.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let (id, rx) = self.send(method, params)?;
        match rx.recv_timeout(CALL_TIMEOUT) {
            Ok(message) => result_of(message).map_err(|e| format!("{}: {}", method, e)),
            Err(RecvTimeoutError::Timeout) => {
                self.forget(id);
                Err(format!("{}: no answer within {} s", method, CALL_TIMEOUT.as_secs()))
            }
            Err(RecvTimeoutError::Disconnected) => Err(format!("{}: the gateway closed the connection", method)),
        }
    }

    /// Writes a notification (no id, no answer).
    pub fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), String> {
        let mut message = json!({ "jsonrpc": "2.0", "method": method });
        if let Some(params) = params {
            message["params"] = params;
        }
        write_line(&self.stdin, &message).map_err(|e| format!("{}: {}", method, e))
    }

    /// Drops the wait for a request that will not be answered (cancelled, timed out).
    pub fn forget(&mut self, id: u64) {
        self.shared.lock().unwrap().pending.remove(&id);
    }

    /// Routes the progress of requests sent with `_meta.progressToken` = `token` to `listener`,
    /// called on the reader thread (it must not wait on the gateway itself).
    pub fn on_progress(&mut self, token: &Value, listener: ProgressFn) {
        self.shared.lock().unwrap().progress.insert(token.to_string(), listener);
    }

    pub fn forget_progress(&mut self, token: &Value) {
        self.shared.lock().unwrap().progress.remove(&token.to_string());
    }

    /// Shuts the gateway down as stdio asks: close its stdin, wait for it to exit (it closes the
    /// servers it started), kill it only if it does not exit in time.
    pub fn close(mut self) -> Result<ExitStatus, String> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<ExitStatus, String> {
        if let Some(status) = self.exited {
            return Ok(status);
        }
        self.stdin.lock().unwrap().take(); // dropping the pipe closes it
        let deadline = Instant::now() + EXIT_TIMEOUT;
        let status = loop {
            match self.child.try_wait().map_err(|e| e.to_string())? {
                Some(status) => break status,
                None if Instant::now() >= deadline => {
                    let _ = self.child.kill();
                    break self.child.wait().map_err(|e| e.to_string())?;
                }
                None => thread::sleep(Duration::from_millis(20)),
            }
        };
        self.exited = Some(status);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        Ok(status)
    }
}

impl Drop for Gateway {
    /// A host that returns early (an error) still closes the gateway, and with it the servers.
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// The `result` of a response, or its `error` as text.
fn result_of(mut message: Value) -> Result<Value, String> {
    if let Some(error) = message.get("error") {
        let text = error.get("message").and_then(Value::as_str).unwrap_or("");
        return Err(format!("JSON-RPC error {}: {}", error.get("code").unwrap_or(&Value::Null), text));
    }
    Ok(message.get_mut("result").map(Value::take).unwrap_or(Value::Null))
}

fn write_line(stdin: &Writer, message: &Value) -> Result<(), String> {
    let mut line = serde_json::to_vec(message).map_err(|e| e.to_string())?;
    line.push(b'\n');
    let mut guard = stdin.lock().unwrap(); // one writer at a time: lines never interleave
    let pipe = guard.as_mut().ok_or("the gateway's stdin is closed")?;
    pipe.write_all(&line).and_then(|_| pipe.flush()).map_err(|e| format!("writing to the gateway: {}", e))
}

fn read_loop(mut stdout: impl BufRead, stdin: &Writer, shared: &Mutex<Shared>) {
    let mut line = Vec::new();
    loop {
        match read_line_bounded(&mut stdout, &mut line, MAX_LINE) {
            Ok(Line::Eof) | Err(_) => break,
            Ok(Line::TooLong) => eprintln!("rust-host: skipped a line of more than {} bytes from the gateway", MAX_LINE),
            Ok(Line::Full) => dispatch(&line, stdin, shared),
        }
    }
    // The gateway is gone: every caller still waiting gets `Disconnected` at once.
    let mut shared = shared.lock().unwrap();
    shared.closed = true;
    shared.pending.clear();
    shared.progress.clear();
}

fn dispatch(line: &[u8], stdin: &Writer, shared: &Mutex<Shared>) {
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let message: Value = match serde_json::from_slice(line) {
        Ok(message) => message,
        Err(_) => {
            let shown: String = String::from_utf8_lossy(line).chars().take(200).collect();
            eprintln!("rust-host: not JSON on the gateway's stdout: {:?}", shown);
            return;
        }
    };
    let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
    let id = message.get("id").filter(|id| !id.is_null()).cloned();
    match (method, id) {
        (Some(method), Some(id)) => {
            let refusal = json!({ "jsonrpc": "2.0", "id": id,
                "error": { "code": -32601, "message": format!("{} is not supported by rust-host", method) } });
            let _ = write_line(stdin, &refusal);
        }
        (Some(method), None) if method == "notifications/progress" => {
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            let token = params.get("progressToken").map(Value::to_string).unwrap_or_default();
            if let Some(listener) = shared.lock().unwrap().progress.get(&token) {
                listener(&params);
            }
        }
        (Some(method), None) => println!("notification: {}", method),
        (None, Some(id)) => {
            let waiting = id.as_u64().and_then(|id| shared.lock().unwrap().pending.remove(&id));
            if let Some(waiting) = waiting {
                let _ = waiting.send(message);
            }
        }
        (None, None) => eprintln!("rust-host: a message with neither method nor id from the gateway"),
    }
}

enum Line {
    Full,
    TooLong,
    Eof,
}

/// Reads one line into `line` (cleared first), at most `max` bytes of it: a longer line is read
/// through to its end and dropped.
fn read_line_bounded(r: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    line.clear();
    let n = r.by_ref().take(max as u64 + 1).read_until(b'\n', line)?;
    if n == 0 {
        return Ok(Line::Eof);
    }
    if line.last() == Some(&b'\n') || line.len() <= max {
        return Ok(Line::Full);
    }
    loop {
        line.clear();
        let n = r.by_ref().take(max as u64).read_until(b'\n', line)?;
        if n == 0 || line.last() == Some(&b'\n') {
            line.clear();
            return Ok(Line::TooLong);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<String> {
        let (mut r, mut line, mut out) = (input, Vec::new(), Vec::new());
        loop {
            match read_line_bounded(&mut r, &mut line, max).unwrap() {
                Line::Eof => return out,
                Line::TooLong => out.push("<too long>".to_owned()),
                Line::Full => out.push(String::from_utf8_lossy(&line).into_owned()),
            }
        }
    }

    #[test]
    fn reads_line_by_line_and_the_last_line_without_a_newline() {
        assert_eq!(lines(b"{\"a\":1}\n{}\nlast", 16), ["{\"a\":1}\n", "{}\n", "last"]);
    }

    #[test]
    fn a_line_over_the_bound_is_dropped_and_the_next_one_is_whole() {
        let long = format!("{}\n", "x".repeat(100));
        let input = format!("short\n{}{}\nnext\n", long, "y".repeat(17));
        assert_eq!(lines(input.as_bytes(), 16), ["short\n", "<too long>", "<too long>", "next\n"]);
    }

    #[test]
    fn a_line_of_exactly_the_bound_is_whole() {
        let line = format!("{}\n", "z".repeat(16));
        assert_eq!(lines(line.as_bytes(), 16), [line.clone()]);
        assert_eq!(lines(&line.as_bytes()[..16], 16), ["z".repeat(16)]);
    }

    #[test]
    fn a_response_settles_its_caller_and_an_error_becomes_text() {
        let shared = Mutex::new(Shared::default());
        let (tx, rx) = mpsc::channel();
        shared.lock().unwrap().pending.insert(7, tx);
        let stdin: Writer = Arc::new(Mutex::new(None));
        dispatch(br#"{"jsonrpc":"2.0","id":7,"result":{"ok":true}}"#, &stdin, &shared);
        assert_eq!(result_of(rx.try_recv().unwrap()), Ok(json!({ "ok": true })));
        assert!(shared.lock().unwrap().pending.is_empty());
        let error = json!({ "jsonrpc": "2.0", "id": 8, "error": { "code": -32601, "message": "no" } });
        assert_eq!(result_of(error), Err("JSON-RPC error -32601: no".to_owned()));
    }
}
