//! Prints a generated plan: `cargo run --release --example gen_plan -- 50000 > big.tiss`;
//! with a shape (`steps`, `heredoc`, `conditions`, `prompts`: `benches/plan_shapes.rs`),
//! a plan of that shape, or with `--lua` its Lua twin:
//! `gen_plan 54000 steps > steps.tiss; gen_plan 54000 steps --lua > steps.lua`.

#[path = "plan_gen.rs"]
mod plan_gen;
#[path = "plan_shapes.rs"]
mod plan_shapes;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let lines = args.first().and_then(|a| a.parse().ok()).unwrap_or(50_000);
    let lua = args.iter().any(|a| a == "--lua");
    match args.get(1).filter(|a| *a != "--lua") {
        None => print!("{}", plan_gen::generate(lines)),
        Some(name) => match plan_shapes::shape(name, lines) {
            Some((tiss, twin)) => print!("{}", if lua { twin } else { tiss }),
            None => {
                eprintln!(
                    "gen_plan: `{name}` is not a shape; the shapes: {}",
                    plan_shapes::SHAPES.join(", ")
                );
                std::process::exit(2);
            }
        },
    }
}
