//! Prints a generated plan: `cargo run --release --example gen_plan -- 50000 > big.tiss`.

#[path = "plan_gen.rs"]
mod plan_gen;

fn main() {
    let lines = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50_000);
    print!("{}", plan_gen::generate(lines));
}
