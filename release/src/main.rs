//! Builds the plugin archive (issue 6).

fn main() {
    eprintln!("jev-preflight-release: not built yet");
    std::process::exit(2);
}
