use std::process::ExitCode;

fn main() -> ExitCode {
    jev_preflight::cmd::main()
}
