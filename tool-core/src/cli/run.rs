//! The command line's arguments (clap) and its entry points.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
#[cfg(any(feature = "mcp", feature = "playground"))]
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Parser, Subcommand, ValueEnum};

use super::commands::{self, find, Out};
use super::style::Style;
use crate::catalog::ToolCatalog;
use crate::executor::Executor;
use crate::policy::Decision;

/// The tools linked into this program: list, show, export, call, check, size, search, serve.
#[derive(Debug, Parser)]
#[command(name = "tools", version, about, long_about = None)]
struct Args {
    /// When to colour the output: on a terminal (auto), always or never.
    #[arg(long, global = true, value_enum, default_value_t = Colour::Auto)]
    color: Colour,
    #[command(subcommand)]
    command: Command,
}

/// Which tools are deferred, over the catalog's own settings.
#[derive(Debug, clap::Args)]
struct DeferralArgs {
    /// Defer every tool but those --keep-loaded names (as `CatalogBuilder::defer_all`).
    #[arg(long)]
    defer_all: bool,
    /// Keep this tool loaded, whatever defers it (as `CatalogBuilder::keep_loaded`); repeatable.
    #[arg(long, value_name = "NAME")]
    keep_loaded: Vec<String>,
}

/// Approval rules over the executor's own.
#[derive(Debug, clap::Args)]
struct ApprovalArgs {
    /// Calls of these tools wait for a person's approval, beside those the executor already
    /// holds: destructive, not_read_only, all, tagged:TAG or tool:NAME; repeatable.
    #[arg(long, value_name = "RULE")]
    require_approval: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Colour {
    Auto,
    Always,
    Never,
}

// Parsed once per process from the command line: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// List the tools: name, kind, tags and parameters (`?` marks the optional ones).
    List {
        /// Only the tools with this tag.
        #[arg(long)]
        tag: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one tool: its definition, parameters, schemas and examples.
    Show {
        /// The tool's name.
        name: String,
        /// Print the whole definition as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write the catalog in one or more formats, to standard output or into a folder.
    Export {
        /// json, markdown, openai, openai-strict, responses, responses-strict, anthropic,
        /// anthropic-strict, gemini, gemini-json-schema, mcp, xml, or all.
        #[arg(long, short, required = true, num_args = 1.., value_delimiter = ',')]
        format: Vec<String>,
        /// Write one file per format into this folder (tools.json, tools.md, openai.json, ...).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Cut every description longer than this many tokens (reported on standard error).
        #[arg(long)]
        max_description_tokens: Option<usize>,
        /// With --out, print the files written as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a tool through the executor and print its record; exits with 1 when the call fails
    /// or waits for approval.
    Call {
        /// The tool's name.
        name: String,
        /// The arguments, as the model would send them (read from standard input if left out).
        #[arg(long)]
        args: Option<String>,
        /// The conversation, for stateful tools.
        #[arg(long)]
        conversation: Option<String>,
        #[command(flatten)]
        approval: ApprovalArgs,
        /// If the call waits for a person's approval, approve it: it runs.
        #[arg(long, conflicts_with = "deny")]
        approve: bool,
        /// If the call waits for a person's approval, deny it: the model reads REASON.
        #[arg(long, value_name = "REASON")]
        deny: Option<String>,
        /// Print the whole record as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check every definition against every provider dialect's rules, and list what each
    /// dialect cannot express; exits with 1 on a problem.
    Check {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// What the tool list costs on every request: characters and tokens per tool and format,
    /// and up front with the deferred tools left to a tool search.
    Size {
        /// Cut every description longer than this many tokens first (reported on standard error).
        #[arg(long)]
        max_description_tokens: Option<usize>,
        #[command(flatten)]
        deferral: DeferralArgs,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Search the tools as the search tool does: the ranking, each tool's score and the words
    /// it matched, and where.
    Search {
        /// What the tool you need does, in a few words, or a tool's name.
        query: String,
        /// The most tools to show (1 to 10000).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
        /// Only the deferred tools, the ones the search tool finds.
        #[arg(long)]
        deferred: bool,
        #[command(flatten)]
        deferral: DeferralArgs,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Serve the tools over MCP: on standard input and output, or streamable HTTP with --http.
    #[cfg(feature = "mcp")]
    ServeMcp {
        /// Serve streamable HTTP on this address (127.0.0.1:PORT) instead of stdio.
        #[arg(long)]
        http: Option<SocketAddr>,
        /// With --http: the bearer token clients must send (other users of this machine can
        /// read it in `ps`; prefer --token-env or --token-file).
        #[arg(long, group = "secret")]
        token: Option<String>,
        /// With --http: read the bearer token from this environment variable.
        #[arg(long, value_name = "VAR", group = "secret")]
        token_env: Option<String>,
        /// With --http: read the bearer token from this file (surrounding whitespace dropped).
        #[arg(long, value_name = "PATH", group = "secret")]
        token_file: Option<PathBuf>,
        /// With --http on an address beyond loopback: serve without a bearer token, letting
        /// anyone who can reach the address call every tool.
        #[arg(long, conflicts_with = "secret")]
        allow_unauthenticated_remote: bool,
        /// With --http: print the endpoint as one line of JSON.
        #[arg(long)]
        json: bool,
        /// Keep state between calls (retry budgets, rate limits, pending approvals, the state
        /// of `shared_state` tools) in this store, shared by every replica given the same one:
        /// `redis://[user:password@]host:port[/db]` (feature `redis`). Prefer --state-env or
        /// --state-file when the URL holds a password.
        #[arg(long, value_name = "URL", group = "store")]
        state: Option<String>,
        /// Read the store's URL from this environment variable.
        #[arg(long, value_name = "VAR", group = "store")]
        state_env: Option<String>,
        /// Read the store's URL from this file (surrounding whitespace dropped).
        #[arg(long, value_name = "PATH", group = "store")]
        state_file: Option<PathBuf>,
        /// With --http: serve without MCP sessions, each request on its own, so that any
        /// replica behind a load balancer serves any request.
        #[arg(long)]
        stateless: bool,
        /// With --http: name a call's conversation by this request header (for example
        /// `x-conversation-id`) instead of by session.
        #[arg(long, value_name = "NAME")]
        conversation_header: Option<String>,
        /// With --http: also serve requests addressed to this host (a `Host` header such as
        /// `tools.example.com`, the name a load balancer forwards), beside the loopback names;
        /// may be given again.
        #[arg(long, value_name = "HOST")]
        allow_host: Vec<String>,
        /// With --http: read the keys that seal the `requestState` of multi-round-trip requests
        /// (protocol 2026-07-28) from this environment variable: one `id=secret` per line, each
        /// secret at least 32 bytes, the first line the key that seals. Replicas behind one
        /// address need the same keys; without them each process makes its own.
        #[arg(long, value_name = "VAR", group = "request_state_keys")]
        request_state_keys_env: Option<String>,
        /// With --http: read those keys from this file instead.
        #[arg(long, value_name = "PATH", group = "request_state_keys")]
        request_state_keys_file: Option<PathBuf>,
        /// How long a running MCP task's heartbeat may be silent before the replica asked next
        /// takes the task over or reports it failed (default 30; at least 0.03).
        #[arg(long, value_name = "SECONDS", value_parser = task_lease)]
        task_lease: Option<std::time::Duration>,
        /// With --http: on Ctrl-C or SIGTERM, let running calls finish for this long (default
        /// 10; 0 to 86400) before cancelling the rest, each recorded as cancelled.
        #[arg(long, value_name = "SECONDS", value_parser = drain_seconds)]
        drain_seconds: Option<std::time::Duration>,
        #[cfg(feature = "oauth")]
        #[command(flatten)]
        oauth: super::oauth_args::OAuthArgs,
    },
    /// Serve the playground page: forms for every tool, calls run through the executor.
    #[cfg(feature = "playground")]
    Playground {
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:8787")]
        addr: SocketAddr,
        /// Listen on an address beyond loopback, although the playground has no
        /// authentication: anyone who can reach the address can call every tool.
        #[arg(long)]
        allow_unauthenticated_remote: bool,
        /// Print the page's address as one line of JSON.
        #[arg(long)]
        json: bool,
        /// Play a caller whose access token grants these OAuth scopes (space-separated) and
        /// no others: the tools needing another are not listed, found or called, as over
        /// `serve-mcp` with OAuth.
        #[arg(long, value_name = "SCOPES")]
        scopes: Option<String>,
        #[command(flatten)]
        deferral: DeferralArgs,
        #[command(flatten)]
        approval: ApprovalArgs,
    },
}

/// The `tools` command line for an executor's catalog.
#[derive(Debug, Clone)]
pub struct ToolsCli {
    executor: Executor,
}

impl ToolsCli {
    /// The command line for `executor` (its catalog, state and limits are what calls use).
    pub fn new(executor: Executor) -> Self {
        ToolsCli { executor }
    }

    /// The command line for the tools linked into this program (`ToolCatalog::global`).
    pub fn global() -> Result<Self, &'static crate::catalog::CatalogError> {
        Ok(ToolsCli::new(Executor::new(ToolCatalog::global()?.clone())))
    }

    /// Runs with the process's arguments, standard input and output; returns the exit status.
    pub fn run(self) -> ExitCode {
        let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let code = self.run_with(
            std::env::args_os(),
            &mut std::io::stdin().lock(),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
            colour,
        );
        ExitCode::from(u8::try_from(code).unwrap_or(1))
    }

    /// Runs with these arguments (the first is the program's name) and streams; `terminal`
    /// says whether `--color auto` colours. Returns the exit status.
    pub fn run_with<I, T>(
        self,
        args: I,
        stdin: &mut dyn Read,
        stdout: &mut dyn Write,
        stderr: &mut dyn Write,
        terminal: bool,
    ) -> i32
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let args = match Args::try_parse_from(args) {
            Ok(args) => args,
            Err(error) => {
                if let Some(feature) = left_out(&error) {
                    let _ = writeln!(stderr, "error: {feature}");
                    return 2;
                }
                let text = if terminal { error.render().ansi().to_string() } else { error.render().to_string() };
                let _ = if error.use_stderr() { write!(stderr, "{text}") } else { write!(stdout, "{text}") };
                return error.exit_code();
            }
        };
        let style = Style {
            colour: match args.color {
                Colour::Auto => terminal,
                Colour::Always => true,
                Colour::Never => false,
            },
        };
        match self.dispatch(args.command, style, stdin, stdout, stderr) {
            Ok(code) => code,
            // The reader went away (`tools list | head`): nothing more to say.
            Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => 0,
            Err(error) => {
                let _ = writeln!(stderr, "error: {error}");
                1
            }
        }
    }

    fn dispatch(
        &self,
        command: Command,
        style: Style,
        stdin: &mut dyn Read,
        out: Out<'_>,
        err: Out<'_>,
    ) -> std::io::Result<i32> {
        let catalog = self.executor.catalog();
        let usage = |err: Out<'_>, message: String| -> std::io::Result<i32> {
            writeln!(err, "error: {message}")?;
            Ok(2)
        };
        match command {
            Command::List { tag, json } => commands::list(catalog, tag.as_deref(), json, style, out),
            Command::Show { name, json } => match find(catalog, &name) {
                Ok(tool) => commands::show(tool, json, style, out),
                Err(message) => usage(err, message),
            },
            Command::Export { format, out: dir, max_description_tokens, json } => match commands::formats(&format) {
                Ok(formats) => {
                    commands::export_formats(catalog, &formats, dir.as_deref(), max_description_tokens, json, out, err)
                }
                Err(message) => usage(err, message),
            },
            Command::Call { name, args, conversation, approval, approve, deny, json } => {
                let executor = match commands::approval_rules(catalog, &approval.require_approval) {
                    Ok(rules) => self.executor.with_approval_rules(rules),
                    Err(message) => return usage(err, message),
                };
                let answer = match deny {
                    Some(reason) if reason.trim().is_empty() => {
                        return usage(err, "--deny needs a reason: the model reads it".to_owned())
                    }
                    Some(reason) => Some(Decision::deny(reason)),
                    None => approve.then_some(Decision::Approve),
                };
                let arguments = match args {
                    Some(arguments) => arguments,
                    None => {
                        let mut text = String::new();
                        stdin.read_to_string(&mut text)?;
                        text
                    }
                };
                let record = runtime()?.block_on(commands::call(&executor, &name, arguments, conversation, answer));
                commands::call_output(&record, json, style, out)
            }
            Command::Check { json } => commands::check(catalog, json, style, out),
            Command::Size { max_description_tokens, deferral, json } => {
                match commands::with_deferral(catalog, deferral.defer_all, &deferral.keep_loaded) {
                    Ok(catalog) => commands::size(&catalog, max_description_tokens, json, style, out, err),
                    Err(message) => usage(err, message),
                }
            }
            Command::Search { query, limit, deferred, deferral, json } => {
                match commands::with_deferral(catalog, deferral.defer_all, &deferral.keep_loaded) {
                    Ok(catalog) => commands::search(&catalog, &query, limit as usize, deferred, json, style, out),
                    Err(message) => usage(err, message),
                }
            }
            #[cfg(feature = "mcp")]
            Command::ServeMcp {
                http,
                token,
                token_env,
                token_file,
                allow_unauthenticated_remote,
                json,
                state,
                state_env,
                state_file,
                stateless,
                conversation_header,
                allow_host,
                request_state_keys_env,
                request_state_keys_file,
                task_lease,
                drain_seconds,
                #[cfg(feature = "oauth")]
                oauth,
            } => {
                let keys = secret(
                    "the request state keys",
                    "--request-state-keys",
                    None,
                    request_state_keys_env,
                    request_state_keys_file,
                );
                let state_keys = match keys.and_then(|keys| keys.map(|keys| request_state_keys(&keys)).transpose()) {
                    Ok(keys) => keys,
                    Err(message) => return usage(err, message),
                };
                let store = match secret("the state store's URL", "--state", state, state_env, state_file) {
                    Ok(store) => store,
                    Err(message) => return usage(err, message),
                };
                let runtime = runtime()?;
                let executor = match store {
                    None => self.executor.clone(),
                    Some(url) => match runtime.block_on(connect_store(&url)) {
                        Ok(store) => self.executor.with_store(store),
                        Err(message) => return usage(err, message),
                    },
                };
                let Some(address) = http else {
                    return runtime.block_on(serve_stdio(executor));
                };
                let token = match secret("the bearer token", "--token", token, token_env, token_file) {
                    Ok(token) => token,
                    Err(message) => return usage(err, message),
                };
                #[cfg(feature = "oauth")]
                let oauth = match oauth.resource_server() {
                    Ok(oauth) => oauth,
                    Err(message) => return usage(err, message),
                };
                #[cfg(feature = "oauth")]
                let protected = oauth.is_some();
                #[cfg(not(feature = "oauth"))]
                let protected = false;
                if token.is_none()
                    && !protected
                    && !allow_unauthenticated_remote
                    && crate::listen::beyond_loopback(address)
                {
                    return usage(
                        err,
                        format!(
                            "refusing to serve MCP on {address} without a bearer token: anyone who can reach it could \
                             call every tool. Give a token with --token-env VAR or --token-file PATH, or pass \
                             --allow-unauthenticated-remote to serve without one"
                        ),
                    );
                }
                let hosts = allow_host;
                let served = Served {
                    address,
                    token,
                    json,
                    stateless,
                    conversation_header,
                    hosts,
                    state_keys,
                    task_lease,
                    drain: drain_seconds.unwrap_or(DRAIN),
                    #[cfg(feature = "oauth")]
                    oauth,
                };
                runtime.block_on(serve_mcp(executor, served, out))
            }
            #[cfg(feature = "playground")]
            Command::Playground { addr, allow_unauthenticated_remote, json, scopes, deferral, approval } => {
                if !allow_unauthenticated_remote && crate::listen::beyond_loopback(addr) {
                    return usage(
                        err,
                        format!(
                            "refusing to serve the playground on {addr}: it has no authentication, so anyone who \
                             can reach it could call every tool. Use a loopback address such as 127.0.0.1:8787, or \
                             pass --allow-unauthenticated-remote"
                        ),
                    );
                }
                let searched = match commands::with_deferral(catalog, deferral.defer_all, &deferral.keep_loaded) {
                    Ok(catalog) => catalog,
                    Err(message) => return usage(err, message),
                };
                let executor = match commands::approval_rules(catalog, &approval.require_approval) {
                    Ok(rules) => self.executor.with_approval_rules(rules),
                    Err(message) => return usage(err, message),
                };
                let granted = scopes.map(|scopes| scopes.split_whitespace().map(str::to_owned).collect());
                runtime()?.block_on(super::playground::serve(executor, searched, addr, granted, json, out))
            }
        }
    }
}

/// What `serve-mcp --http` serves with.
#[cfg(feature = "mcp")]
struct Served {
    address: SocketAddr,
    token: Option<String>,
    json: bool,
    stateless: bool,
    conversation_header: Option<String>,
    hosts: Vec<String>,
    state_keys: Option<RequestStateKeys>,
    task_lease: Option<std::time::Duration>,
    drain: std::time::Duration,
    #[cfg(feature = "oauth")]
    oauth: Option<crate::auth::ResourceServer>,
}

/// How long `serve-mcp` lets running calls finish on a signal, unless told.
#[cfg(feature = "mcp")]
const DRAIN: std::time::Duration = std::time::Duration::from_secs(10);

/// `--drain-seconds`: seconds, whole or not, from 0 to a day.
#[cfg(feature = "mcp")]
fn drain_seconds(text: &str) -> Result<std::time::Duration, String> {
    seconds_between(text, 0.0, "0")
}

/// Returns on Ctrl-C, or on SIGTERM (what an orchestrator sends to stop a process).
#[cfg(feature = "mcp")]
async fn stop_signal() {
    #[cfg(unix)]
    {
        if let Ok(mut terminate) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// `--task-lease`: seconds, whole or not, from 0.03 to a day.
#[cfg(feature = "mcp")]
fn task_lease(text: &str) -> Result<std::time::Duration, String> {
    seconds_between(text, 0.03, "0.03")
}

/// Seconds, whole or not, from `min` (written `shown`) to a day.
#[cfg(feature = "mcp")]
fn seconds_between(text: &str, min: f64, shown: &str) -> Result<std::time::Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if (min..=86_400.0).contains(&seconds) => Ok(std::time::Duration::from_secs_f64(seconds)),
        _ => Err(format!("`{text}` is not a number of seconds from {shown} to 86400")),
    }
}

/// The keys that seal `requestState`: the active key's id, and every key by id.
#[cfg(feature = "mcp")]
type RequestStateKeys = (String, Vec<(String, Vec<u8>)>);

/// Reads `id=secret` lines, the first the active key; blank lines are skipped. A line without
/// `=` or with an empty id is refused by its number, never quoting the secret.
#[cfg(feature = "mcp")]
fn request_state_keys(text: &str) -> Result<RequestStateKeys, String> {
    let mut keys = Vec::new();
    for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        match line.trim().split_once('=') {
            Some((id, secret)) if !id.trim().is_empty() => {
                let secret = secret.trim().as_bytes().to_vec();
                if secret.len() < 32 {
                    return Err(format!(
                        "the request state key `{}` (line {}) is {} bytes long; a key needs at least 32",
                        id.trim(),
                        number + 1,
                        secret.len()
                    ));
                }
                keys.push((id.trim().to_owned(), secret));
            }
            _ => {
                return Err(format!(
                "the request state keys: line {} is not `id=secret` (one key per line, the first the one that seals)",
                number + 1
            ))
            }
        }
    }
    let active = keys.first().map(|(id, _)| id.clone()).ok_or("the request state keys hold no key")?;
    Ok((active, keys))
}

#[cfg(feature = "mcp")]
async fn serve_stdio(executor: crate::Executor) -> std::io::Result<i32> {
    let server = crate::mcp::McpServer::new(executor).map_err(std::io::Error::other)?;
    server.serve_stdio().await.map_err(std::io::Error::other)?;
    Ok(0)
}

/// Serves streamable HTTP; without a token only when the caller allowed it.
#[cfg(feature = "mcp")]
async fn serve_mcp(executor: crate::Executor, served: Served, out: Out<'_>) -> std::io::Result<i32> {
    let mut server = crate::mcp::McpServer::builder(executor);
    if let Some((active, keys)) = served.state_keys {
        server = server.request_state_keys(&active, keys);
    }
    if let Some(lease) = served.task_lease {
        server = server.task_lease(lease);
    }
    let server = server.build().map_err(std::io::Error::other)?;
    let mut builder = server.http().bind(served.address).stateless(served.stateless);
    match served.token {
        Some(token) => builder = builder.bearer_token(token),
        None => builder = builder.allow_unauthenticated_remote(true),
    }
    if let Some(header) = served.conversation_header {
        builder = builder.conversation_header(header);
    }
    #[cfg(feature = "oauth")]
    if let Some(auth) = served.oauth {
        builder = builder.oauth(auth);
    }
    for host in served.hosts {
        builder = builder.allow_host(host);
    }
    let running = builder.start().await.map_err(std::io::Error::other)?;
    if served.json {
        writeln!(out, "{}", serde_json::json!({ "url": running.url() }))?;
    } else {
        writeln!(out, "serving MCP at {} (Ctrl-C stops)", running.url())?;
    }
    out.flush()?;
    stop_signal().await;
    running.shutdown_within(served.drain).await;
    Ok(0)
}

/// The store a URL names, connected; or why not, in words that never show its password.
#[cfg(all(feature = "mcp", feature = "redis"))]
async fn connect_store(url: &str) -> Result<crate::state::SharedStore, String> {
    let store = crate::state::RedisStore::builder(url).connect().await.map_err(|e| format!("--state: {e}"))?;
    Ok(std::sync::Arc::new(store))
}

#[cfg(all(feature = "mcp", not(feature = "redis")))]
async fn connect_store(_url: &str) -> Result<crate::state::SharedStore, String> {
    Err("--state: this build keeps state in memory only; build tool-core with its feature `redis` for a shared store"
        .to_owned())
}

/// A secret from whichever of `--{flag}`, `--{flag}-env` and `--{flag}-file` was given (clap
/// lets through at most one), or a message saying why it cannot be read.
#[cfg(feature = "mcp")]
fn secret(
    what: &str,
    flag: &str,
    value: Option<String>,
    variable: Option<String>,
    file: Option<PathBuf>,
) -> Result<Option<String>, String> {
    let value = match (value, variable, file) {
        (Some(value), ..) => value,
        (_, Some(variable), _) => std::env::var(&variable).map_err(|_| {
            format!("{flag}-env {variable}: the environment variable `{variable}` is not set (or not text)")
        })?,
        (.., Some(file)) => std::fs::read_to_string(&file)
            .map_err(|e| format!("{flag}-file {}: cannot read {what}: {e}", file.display()))?
            .trim()
            .to_owned(),
        (None, None, None) => return Ok(None),
    };
    if value.is_empty() {
        return Err(format!("{what} is empty; give a secret"));
    }
    Ok(Some(value))
}

/// The subcommands this build leaves out, each with the feature of tool-core that brings it.
const LEFT_OUT: &[(&str, &str)] = &[
    #[cfg(not(feature = "mcp"))]
    ("serve-mcp", "mcp"),
    #[cfg(not(feature = "playground"))]
    ("playground", "playground"),
];

/// For a subcommand this build leaves out, what to add to get it: clap alone would only call
/// it unknown, and the user would not learn that a feature brings it.
fn left_out(error: &clap::Error) -> Option<String> {
    if error.kind() != ErrorKind::InvalidSubcommand {
        return None;
    }
    let Some(ContextValue::String(name)) = error.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let (name, feature) = LEFT_OUT.iter().find(|(command, _)| command == name)?;
    Some(format!(
        "`tools {name}` is not in this build: it needs the `{feature}` feature of tool-core \
         (features = [\"cli\", \"{feature}\"] in the Cargo.toml of the program that runs `tools`)"
    ))
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()
}

/// `tools` for the tools linked into this program: the whole `main` of a tools binary.
pub fn main() -> ExitCode {
    match ToolsCli::global() {
        Ok(cli) => cli.run(),
        Err(error) => {
            eprintln!("error: the tools linked into this program do not make a catalog: {error}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `tools` with `args` on an empty catalog; returns the exit status, standard output
    /// and standard error.
    fn run(args: &[&str]) -> (i32, String, String) {
        let cli = ToolsCli::new(Executor::new(ToolCatalog::builder().build().unwrap()));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = cli.run_with(
            std::iter::once("tools").chain(args.iter().copied()),
            &mut std::io::empty(),
            &mut out,
            &mut err,
            false,
        );
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    }

    #[test]
    fn a_subcommand_left_out_of_the_build_names_the_feature_that_brings_it() {
        for (command, feature) in LEFT_OUT {
            assert_eq!(
                run(&[command, "--json"]),
                (
                    2,
                    String::new(),
                    format!(
                        "error: `tools {command}` is not in this build: it needs the `{feature}` feature of \
                         tool-core (features = [\"cli\", \"{feature}\"] in the Cargo.toml of the program that runs \
                         `tools`)\n"
                    )
                )
            );
        }
        let (code, _, err) = run(&["serve"]);
        assert_eq!(code, 2);
        assert!(err.starts_with("error: unrecognized subcommand 'serve'"), "{err}");
    }

    #[test]
    fn the_subcommands_of_this_build_are_those_its_features_bring() {
        let names: Vec<String> =
            <Args as clap::CommandFactory>::command().get_subcommands().map(|c| c.get_name().to_owned()).collect();
        let mut expected = vec!["list", "show", "export", "call", "check", "size", "search"];
        if cfg!(feature = "mcp") {
            expected.push("serve-mcp");
        }
        if cfg!(feature = "playground") {
            expected.push("playground");
        }
        assert_eq!(names, expected);
        assert_eq!(LEFT_OUT.len(), 9 - expected.len());
    }
}
