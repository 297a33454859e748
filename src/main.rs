use std::process::ExitCode;

fn main() -> ExitCode {
    jev_preflight::run::main()
}
