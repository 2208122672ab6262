//! The `plumb` command-line tool.

use std::path::PathBuf;
use std::process::ExitCode;

use plumb::raster::{Context, ContextOptions};

fn usage() -> &'static str {
    "usage: plumb [render] [-o OUT.png] [--size WxH] [--threads N]\n\
     Renders the built-in showcase scene (default: plumb.png, 800x600, all cores)."
}

struct Args {
    out: PathBuf,
    width: u32,
    height: u32,
    threads: Option<usize>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        out: PathBuf::from("plumb.png"),
        width: 800,
        height: 600,
        threads: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match arg.as_str() {
            "render" => {}
            "-o" | "--out" => a.out = PathBuf::from(value("-o")?),
            "--size" => {
                let v = value("--size")?;
                let (w, h) = v
                    .split_once('x')
                    .ok_or_else(|| format!("--size {v}: expected WxH"))?;
                a.width = w.parse().map_err(|_| format!("--size {v}: bad width"))?;
                a.height = h.parse().map_err(|_| format!("--size {v}: bad height"))?;
            }
            "--threads" => {
                let v = value("--threads")?;
                a.threads = Some(
                    v.parse()
                        .map_err(|_| format!("--threads {v}: not a number"))?,
                );
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok(a)
}

fn run(a: &Args) -> Result<(), String> {
    let mut ctx = Context::new(a.width, a.height, ContextOptions { threads: a.threads })
        .map_err(|e| e.to_string())?;
    plumb::showcase::draw(&mut ctx).map_err(|e| e.to_string())?;
    ctx.color_image()
        .save(&a.out)
        .map_err(|e| format!("{}: {e}", a.out.display()))?;
    println!("wrote {} ({}x{})", a.out.display(), a.width, a.height);
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a = match parse(&args) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n{}", usage());
            return ExitCode::from(2);
        }
    };
    match run(&a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
