//! A real HTTP/1.1 server on 127.0.0.1 for tests: it records every request (method, path,
//! headers, body) and answers each one with whatever the test's handler returns — a status,
//! headers and body, a delay, a slow body, raw bytes, or a hang.
//!
//! ```ignore
//! let server = TestServer::start(|req, n| Response::json(200, r#"{"ok":true}"#));
//! call(server.url("/v1/systemone"));
//! assert_eq!(server.hits(), 1);
//! assert_eq!(server.requests()[0].header("authorization"), Some("Bearer k"));
//! ```
//!
//! Every connection is answered once and closed (`Connection: close`), so one request is one
//! connection and counts are exact. Dropping the server stops it promptly, including
//! handlers that are still hanging or dribbling a body.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The request target as sent (path and query).
    pub path: String,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// How many times header `name` was sent.
    pub fn header_count(&self, name: &str) -> usize {
        let name = name.to_ascii_lowercase();
        self.headers.iter().filter(|(k, _)| *k == name).count()
    }

    pub fn body_str(&self) -> &str {
        std::str::from_utf8(&self.body).expect("request body is UTF-8")
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum Response {
    /// A complete response. `Content-Length` is added unless `headers` has one or
    /// `no_length` is set (then the body ends when the connection closes).
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        no_length: bool,
    },
    /// Wait, then do the inner thing.
    Delay(Duration, Box<Response>),
    /// Send status and headers (with the full `Content-Length`), then the body in `chunks`
    /// pieces with `gap` between them.
    Slow {
        status: u16,
        body: Vec<u8>,
        chunks: usize,
        gap: Duration,
    },
    /// Write these bytes verbatim, then close.
    Raw(Vec<u8>),
    /// Accept the request and never answer (until the server is dropped).
    Hang,
    /// Close the connection without a byte.
    Close,
}

impl Response {
    pub fn new(status: u16) -> Response {
        Response::Full {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            no_length: false,
        }
    }

    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Response {
        Response::new(status)
            .header("Content-Type", "application/json")
            .body(body)
    }

    /// Adds a header to a [`Response::Full`].
    pub fn header(mut self, name: &str, value: &str) -> Response {
        if let Response::Full { headers, .. } = &mut self {
            headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }

    /// Sets the body of a [`Response::Full`].
    pub fn body(mut self, bytes: impl Into<Vec<u8>>) -> Response {
        if let Response::Full { body, .. } = &mut self {
            *body = bytes.into();
        }
        self
    }

    /// Omits `Content-Length`: the body is delimited by closing the connection.
    pub fn without_length(mut self) -> Response {
        if let Response::Full { no_length, .. } = &mut self {
            *no_length = true;
        }
        self
    }

    pub fn after(self, delay: Duration) -> Response {
        Response::Delay(delay, Box::new(self))
    }
}

type Handler = dyn Fn(&Request, usize) -> Response + Send + Sync + 'static;

struct Shared {
    requests: Mutex<Vec<Request>>,
    stop: AtomicBool,
    handler: Box<Handler>,
}

/// A loopback HTTP server living as long as this value.
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
    workers: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl TestServer {
    /// Starts a server whose `handler` gets each request and its 0-based arrival index.
    pub fn start(
        handler: impl Fn(&Request, usize) -> Response + Send + Sync + 'static,
    ) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            requests: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            handler: Box::new(handler),
        });
        let workers: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let accept = {
            let shared = shared.clone();
            let workers = workers.clone();
            thread::spawn(move || {
                for stream in listener.incoming() {
                    if shared.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let shared = shared.clone();
                    let worker = thread::spawn(move || serve(stream, &shared));
                    workers.lock().unwrap().push(worker);
                }
            })
        };
        TestServer {
            addr,
            shared,
            accept: Some(accept),
            workers,
        }
    }

    /// A server that answers every request the same way.
    pub fn always(response: Response) -> TestServer {
        TestServer::start(move |_, _| response.clone())
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// How many requests arrived.
    pub fn hits(&self) -> usize {
        self.shared.requests.lock().unwrap().len()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
        for h in self.workers.lock().unwrap().drain(..) {
            let _ = h.join();
        }
    }
}

/// A port on 127.0.0.1 that nothing listens on (bound, then released).
pub fn refused_addr() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    addr
}

fn serve(stream: TcpStream, shared: &Shared) {
    if shared.stop.load(Ordering::SeqCst) {
        return;
    }
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let Some(request) = read_request(&stream) else {
        return;
    };
    let index = {
        let mut all = shared.requests.lock().unwrap();
        all.push(request.clone());
        all.len() - 1
    };
    let response = (shared.handler)(&request, index);
    let _ = respond(stream, response, &shared.stop);
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.trim_end().splitn(3, ' ');
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end_matches(['\r', '\n']);
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(len) = find("content-length") {
        let len: usize = len.parse().ok()?;
        body.resize(len, 0);
        reader.read_exact(&mut body).ok()?;
    }
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

/// Sleeps up to `d`, returning early (false) when the server is stopping.
fn nap(d: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    while Instant::now() < end {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        thread::sleep((end - Instant::now()).min(Duration::from_millis(10)));
    }
    true
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn head(status: u16, headers: &[(String, String)], length: Option<usize>) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(n) = length {
        out.push_str(&format!("Content-Length: {n}\r\n"));
    }
    out.push_str("Connection: close\r\n\r\n");
    out.into_bytes()
}

fn respond(mut stream: TcpStream, response: Response, stop: &AtomicBool) -> std::io::Result<()> {
    match response {
        Response::Full {
            status,
            headers,
            body,
            no_length,
        } => {
            let has_length = headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("content-length"));
            let length = (!no_length && !has_length).then_some(body.len());
            stream.write_all(&head(status, &headers, length))?;
            stream.write_all(&body)?;
        }
        Response::Delay(d, inner) => {
            if nap(d, stop) {
                return respond(stream, *inner, stop);
            }
        }
        Response::Slow {
            status,
            body,
            chunks,
            gap,
        } => {
            stream.write_all(&head(
                status,
                &[("Content-Type".into(), "application/json".into())],
                Some(body.len()),
            ))?;
            for piece in body.chunks(body.len().div_ceil(chunks.max(1)).max(1)) {
                stream.write_all(piece)?;
                stream.flush()?;
                if !nap(gap, stop) {
                    break;
                }
            }
        }
        Response::Raw(bytes) => stream.write_all(&bytes)?,
        Response::Hang => {
            nap(Duration::from_secs(600), stop);
        }
        Response::Close => {}
    }
    stream.flush()?;
    let _ = stream.shutdown(std::net::Shutdown::Write);
    Ok(())
}
