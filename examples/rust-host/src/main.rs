//! A Rust program as an MCP host, with `mcpwire serve` as its engine: it spawns the gateway (the
//! configured MCP servers behind one MCP server, over stdio), initializes, lists the tools of
//! every server, shows each server's status (a workspace server the user has not trusted is not
//! started, and the status says why), calls a tool with progress, cancels a long call, and calls
//! a tool whose server crashes: the call fails with the gateway's error and the host carries on.
//! mcpwire keeps doing config, trust, OAuth, reconnects, retries, limits and redaction.
//!
//!     cargo run -- [--workspace <dir>] [--progress <part>] [--cancel <part>] [--crash <part>]
//!                  [--echo <part>] [-- <gateway command…>]
//!
//! The gateway command defaults to `mcpwire serve`; for a checkout: `-- node dist/cli/main.js
//! serve`. It runs in `--workspace` (default: this program's directory), whose project config
//! adds the servers the user trusted there. Each `<part>` picks the first tool whose name
//! contains it (defaults: `_progress` for the call with progress and for the cancelled call,
//! `_crash`, `_echo`); a step whose tool is not there is left out.

mod gateway;

use gateway::Gateway;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

struct Options {
    workspace: Option<PathBuf>,
    progress: String,
    cancel: String,
    crash: String,
    echo: String,
    command: Vec<String>,
}

const USAGE: &str = concat!(
    "usage: rust-host [--workspace <dir>] [--progress <part>] [--cancel <part>] [--crash <part>] [--echo <part>]",
    " [-- <gateway command…>]"
);

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut o = Options {
        workspace: None,
        progress: "_progress".into(),
        cancel: "_progress".into(),
        crash: "_crash".into(),
        echo: "_echo".into(),
        command: vec!["mcpwire".into(), "serve".into()],
    };
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--workspace" => {
                o.workspace = Some(args.next().ok_or("--workspace needs a value")?.into());
                continue;
            }
            "--progress" => &mut o.progress,
            "--cancel" => &mut o.cancel,
            "--crash" => &mut o.crash,
            "--echo" => &mut o.echo,
            "--" => {
                let command: Vec<String> = args.by_ref().collect();
                if command.is_empty() {
                    return Err("`--` needs the gateway command after it".into());
                }
                o.command = command;
                break;
            }
            other => return Err(format!("unknown argument {:?}", other)),
        };
        *slot = args.next().ok_or_else(|| format!("{} needs a value", arg))?;
    }
    Ok(o)
}

fn run(o: &Options) -> Result<(), String> {
    let mut gw = Gateway::spawn(&o.command, o.workspace.as_deref())?;
    let init = gw.call(
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "rust-host", "version": env!("CARGO_PKG_VERSION") } }),
    )?;
    gw.notify("notifications/initialized", None)?;
    println!(
        "initialized: {} {}, protocol {}",
        str_at(&init, "/serverInfo/name"),
        str_at(&init, "/serverInfo/version"),
        str_at(&init, "/protocolVersion")
    );

    let tools = list_tools(&mut gw)?;
    println!("tools: {}", tools.len());
    for name in &tools {
        println!("  {}", name);
    }
    print_status(&mut gw, "status")?;

    if let Some(name) = find(&tools, &o.progress) {
        call_with_progress(&mut gw, name)?;
    }
    if let Some(name) = find(&tools, &o.cancel) {
        cancel_call(&mut gw, name)?;
    }
    if let Some(name) = find(&tools, &o.crash) {
        // The server dies mid-call: the call is a result with isError and the gateway's text
        // (what happened, the server's stderr tail with its secrets redacted), not a hang.
        let result = gw.call("tools/call", json!({ "name": name, "arguments": {} }))?;
        println!("result of {}: {} (isError {})", name, text_of(&result), is_error(&result));
        // The host carries on: the other servers still answer, the crashed one is restarted.
        if let Some(echo) = find(&tools, &o.echo) {
            let result = gw.call("tools/call", json!({ "name": echo, "arguments": { "text": "still here" } }))?;
            println!("after the crash, result of {}: {} (isError {})", echo, text_of(&result), is_error(&result));
        }
        print_status(&mut gw, "status after the crash")?;
    }

    let status = gw.close()?;
    println!("gateway closed: {}", status);
    Ok(())
}

/// Every page of `tools/list`: the tool names.
fn list_tools(gw: &mut Gateway) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let page = gw.call("tools/list", params)?;
        let tools = page.get("tools").and_then(Value::as_array).ok_or("tools/list: no tools array")?;
        names.extend(tools.iter().filter_map(|t| t.get("name").and_then(Value::as_str)).map(str::to_owned));
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => return Ok(names),
        }
    }
}

/// Each server behind the gateway, from the `mcpwire_status` tool: its state, its tool count
/// when ready, and its last error — for an untrusted workspace server, what to do about it.
fn print_status(gw: &mut Gateway, title: &str) -> Result<(), String> {
    let result = gw.call("tools/call", json!({ "name": "mcpwire_status", "arguments": {} }))?;
    let servers = result.pointer("/structuredContent/servers").and_then(Value::as_array).ok_or("mcpwire_status: no servers")?;
    println!("{}:", title);
    for s in servers {
        let mut line = format!("  {}: {}", str_at(s, "/id"), str_at(s, "/state"));
        if s["state"] == "ready" {
            let n = s["tools"].as_u64().unwrap_or(0);
            line += &format!(" ({} tool{})", n, if n == 1 { "" } else { "s" });
        }
        if let Some(error) = s.get("lastError").and_then(Value::as_str) {
            line += &format!(" ({})", error);
        }
        println!("{}", line);
    }
    Ok(())
}

fn call_with_progress(gw: &mut Gateway, name: &str) -> Result<(), String> {
    let token = json!("rust-progress-1");
    gw.on_progress(
        &token,
        Box::new(|p| println!("progress: {}/{} {}", number(&p["progress"]), number(&p["total"]), str_at(p, "/message"))),
    );
    let result = gw.call(
        "tools/call",
        json!({ "name": name, "arguments": { "steps": 3, "intervalMs": 50 }, "_meta": { "progressToken": token } }),
    );
    gw.forget_progress(&token);
    let result = result?;
    println!("result of {}: {} (isError {})", name, text_of(&result), is_error(&result));
    Ok(())
}

/// Starts a long call, waits for its first progress (so it is surely running on its server),
/// cancels it, and checks that it gets no response while the gateway still answers a ping.
fn cancel_call(gw: &mut Gateway, name: &str) -> Result<(), String> {
    let token = json!("rust-cancel-1");
    let (first_tx, first_rx) = mpsc::channel();
    gw.on_progress(&token, Box::new(move |p| drop(first_tx.send(p.clone()))));
    let (id, answer) = gw.send(
        "tools/call",
        json!({ "name": name, "arguments": { "steps": 600, "intervalMs": 50 }, "_meta": { "progressToken": token } }),
    )?;
    let first = first_rx.recv_timeout(Duration::from_secs(60));
    gw.forget_progress(&token);
    let first = first.map_err(|_| format!("{}: no progress within 60 s to cancel after", name))?;
    gw.notify("notifications/cancelled", Some(json!({ "requestId": id, "reason": "rust-host changed its mind" })))?;
    gw.call("ping", json!({})).map_err(|e| format!("after the cancel: {}", e))?;
    let outcome = match answer.recv_timeout(Duration::from_millis(500)) {
        Ok(m) => Err(format!("the cancelled call of {} was answered anyway: {}", name, m)),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err("the gateway closed the connection".to_owned()),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            println!(
                "cancelled {} after progress {}/{}: no response, as the spec says",
                name,
                number(&first["progress"]),
                number(&first["total"])
            );
            Ok(())
        }
    };
    gw.forget(id); // a cancelled request is never answered: stop waiting for it
    outcome
}

fn find<'a>(tools: &'a [String], part: &str) -> Option<&'a str> {
    tools.iter().find(|t| t.contains(part)).map(String::as_str)
}

/// The text content of a `CallToolResult`, its parts joined by a space.
fn text_of(result: &Value) -> String {
    let parts = result.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    parts.iter().filter(|c| c["type"] == "text").filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join(" ")
}

fn is_error(result: &Value) -> bool {
    result.get("isError").and_then(Value::as_bool).unwrap_or(false)
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// A JSON number as a person writes it (`1`, `2.5`), `?` when absent.
fn number(v: &Value) -> String {
    v.as_f64().map(|n| n.to_string()).unwrap_or_else(|| "?".into())
}

fn main() {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("rust-host: {}\n{}", e, USAGE);
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&options) {
        eprintln!("rust-host: {}", e);
        std::process::exit(1);
    }
}
