//! `tissvm run --dry-run`: every effect the plan could have, in order —
//! both arms of each IF, every CHOOSE option, each CALLed task inline —
//! read from the bytecode without running anything, each under the arm it
//! is in:
//!
//! ```text
//! IF LAST_RUN.EXIT_CODE == 0  (line 9) then:
//!   RUN make install  (line 10)
//! else:
//!   LOG failed  (line 12)
//! ```
//!
//! The code is walked in instruction order with a symbolic operand stack:
//! constants are their text, variables `${name}`, fields
//! `${LAST_RUN.STDOUT}`, interpolations their template; each value also
//! has the form a condition shows it in (`LAST_RUN.STDOUT CONTAINS
//! "warning"`). The arms are recovered from the shapes the compiler emits
//! (`compiler/src/lower/`), checked against the module's tables:
//!
//! - IF: the condition, `JUMP_IF_FALSE else`, the then-block, and when there
//!   is an ELSE, `JUMP end` before `else`; the else-block runs to `end`.
//! - AND / OR inside a condition: `JUMP_IF_FALSE|TRUE exit` after each
//!   operand but the last, then `JUMP past; exit: PUSH FALSE|TRUE; past:` —
//!   a conditional jump whose target follows `JUMP target+1` is one of these.
//! - TRY: the handler table's `[start, end)` is the body, `JUMP past` at
//!   `end`, the handler from `target = end + 1` to `past`.
//! - CHOOSE: the options' targets from the choice table, each option but the
//!   last ending in `JUMP end`.
//!
//! Code of any other shape (a module not from this compiler) is listed
//! flat, effect by effect, so every effect is still listed and nothing
//! panics; nesting and CALL expansion are bounded so that no module can
//! exhaust the stack or make the listing explode.

use tisslang::isa::{Instr, run_flags};
use tisslang::module::{Constant, NONE, TemplatePart};
use tisslang::types::Field;

use crate::machine::program::Program;
use crate::machine::value::format_duration;

/// Arms and CALLs nested deeper than this are listed flat, not expanded.
const MAX_NESTING: usize = 200;

/// Past this many listed items, CALLs are no longer expanded (a task called
/// from many places, calling others that are, would repeat exponentially).
const MAX_ITEMS: usize = 100_000;

/// The listing: one effect per line, indented by step, arm and call depth.
/// `source` is the plan's text, if it is at hand: the bytecode runs SETUP
/// as a step, and only the source tells it from a STEP ([`setup_step`]).
pub fn dry_run(program: &Program, source: Option<&str>) -> String {
    let main_end =
        program.module.tasks.iter().map(|t| t.entry).min().unwrap_or(program.module.code.len() as u32);
    let setup = source.and_then(|text| setup_step(program, text));
    let mut walker = Walker { program, setup, calls: Vec::new(), active: Vec::new(), nesting: 0, items: 0 };
    let nodes = walker.block(0, main_end.min(program.module.code.len() as u32));
    let mut out = String::new();
    render(&nodes, 0, &mut out);
    out
}

/// What the listing shows, before it is laid out.
#[derive(Debug)]
enum Node {
    /// An effect, as its line reads (`RUN make  (line 3)`).
    Effect(String),
    /// A step starts: the effects after it, up to its [`Node::StepClose`],
    /// are indented under it.
    StepOpen(String),
    StepClose,
    /// A CALL, with its task's effects unless not expanded.
    Call {
        text: String,
        body: Vec<Node>,
    },
    If {
        head: String,
        then: Vec<Node>,
        otherwise: Option<Vec<Node>>,
    },
    Try {
        body: Vec<Node>,
        catch: String,
        handler: Vec<Node>,
    },
    Choose {
        head: String,
        options: Vec<(String, Vec<Node>)>,
    },
}

/// The plan's SETUP block, if it has one: the first top-level step (SETUP
/// comes before every STEP) when the plan's text `source` has the keyword
/// where that step starts.
fn setup_step(program: &Program, source: &str) -> Option<u32> {
    let first = *program.top_level_steps.first()?;
    let info = program.module.steps.get(first as usize)?;
    let line = source.lines().nth(info.line.checked_sub(1)? as usize)?;
    let mut at = line.chars().skip(info.column.saturating_sub(1) as usize);
    let keyword: String = at.by_ref().take(5).collect();
    let word_goes_on = at.next().is_some_and(|c| c.is_alphanumeric() || c == '_');
    (keyword == "SETUP" && !word_goes_on).then_some(first)
}

/// A value on the symbolic stack: as an effect shows it (`raw`: the text a
/// command or path would hold) and as a condition shows it (`cond`), with
/// the binding strength of its outermost operator in `cond`; `known` when
/// the plan holds it (a constant, or an interpolation of constants), so
/// that `raw` is the value itself, not a placeholder of it.
#[derive(Debug, Clone, Default)]
struct Sym {
    raw: String,
    cond: String,
    strength: Strength,
    known: bool,
}

/// How loosely a condition binds: AND/OR operands and NOT's operand are
/// parenthesized by it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    #[default]
    Atom,
    Test,
    Not,
    And,
    Or,
}

impl Sym {
    fn plain(raw: String, cond: String) -> Sym {
        Sym { raw, cond, strength: Strength::Atom, known: false }
    }

    fn constant(raw: String, cond: String) -> Sym {
        Sym { known: true, ..Sym::plain(raw, cond) }
    }

    fn test(cond: String, strength: Strength) -> Sym {
        Sym { raw: "<value>".into(), cond, strength, known: false }
    }

    /// The condition text, parenthesized if it binds more loosely than `than`.
    fn operand(&self, than: Strength) -> String {
        if self.strength > than { format!("({})", self.cond) } else { self.cond.clone() }
    }

    /// `operands` joined by OR (`is_or`) or AND, whether the code jumped over
    /// the rest or combined their values.
    fn chain(operands: &[Sym], is_or: bool) -> Sym {
        let (word, strength) = if is_or { (" OR ", Strength::Or) } else { (" AND ", Strength::And) };
        let parts: Vec<String> = operands.iter().map(|o| o.operand(strength)).collect();
        Sym::test(parts.join(word), strength)
    }
}

/// An AND or OR whose operands are being collected: its operands exit to
/// `target`, where the short-circuit value is pushed.
struct Junction {
    target: u32,
    is_or: bool,
    operands: Vec<Sym>,
}

struct Walker<'p> {
    program: &'p Program,
    /// The step that is the plan's SETUP block, if known.
    setup: Option<u32>,
    /// Tasks being expanded, so a CALL is never expanded inside itself.
    calls: Vec<u32>,
    /// Handlers whose TRY is being walked.
    active: Vec<usize>,
    nesting: usize,
    items: usize,
}

impl Walker<'_> {
    fn code(&self, pc: u32) -> Option<Instr> {
        self.program.module.code.get(pc as usize).copied()
    }

    /// The effects of `[start, end)`, a block (or a task's body).
    fn block(&mut self, start: u32, end: u32) -> Vec<Node> {
        let mut nodes = Vec::new();
        let mut stack: Vec<Sym> = Vec::new();
        let mut junctions: Vec<Junction> = Vec::new();
        // AND/OR values computed, pushed when the walk reaches their pc.
        let mut resolved: Vec<(u32, Sym)> = Vec::new();
        let mut pc = start;
        while pc < end {
            if let Some(at) = resolved.iter().position(|(p, _)| *p == pc) {
                stack.push(resolved.remove(at).1);
            }
            if let Some((node, next)) = self.construct(pc, end, &mut stack) {
                self.items += 1;
                nodes.push(node);
                stack.clear();
                junctions.clear();
                resolved.clear();
                pc = next;
                continue;
            }
            self.instr(pc, &mut stack, &mut junctions, &mut resolved, &mut nodes);
            pc += 1;
        }
        nodes
    }

    /// The IF, TRY or CHOOSE starting at `pc` (inside `..end`), with the pc
    /// after it; `None` if there is none, or its shape is not the compiler's.
    fn construct(&mut self, pc: u32, end: u32, stack: &mut Vec<Sym>) -> Option<(Node, u32)> {
        if self.nesting >= MAX_NESTING {
            return None;
        }
        self.nesting += 1;
        let found = self.try_at(pc, end).or_else(|| match self.code(pc)? {
            Instr::JumpIfFalse { target } if !self.is_short_circuit(target) => {
                self.if_at(pc, target, end, stack)
            }
            Instr::Choose { choice } => self.choose_at(pc, choice, end),
            _ => None,
        });
        self.nesting -= 1;
        found
    }

    /// Whether a conditional jump to `target` is an AND/OR exit.
    fn is_short_circuit(&self, target: u32) -> bool {
        let (Some(before), Some(past)) = (target.checked_sub(1), target.checked_add(1)) else { return false };
        self.code(before) == Some(Instr::Jump { target: past })
            && matches!(self.code(target), Some(Instr::PushConst { .. }))
    }

    fn if_at(&mut self, pc: u32, target: u32, end: u32, stack: &mut Vec<Sym>) -> Option<(Node, u32)> {
        if target <= pc || target > end {
            return None;
        }
        let cond = stack.pop().unwrap_or_default();
        let head = format!("IF {}  (line {})", cond.cond, self.program.line(pc));
        let else_end = match self.code(target - 1) {
            Some(Instr::Jump { target: past }) if target - 1 > pc && past > target && past <= end => {
                Some(past)
            }
            _ => None,
        };
        Some(match else_end {
            Some(past) => {
                let then = self.block(pc + 1, target - 1);
                let otherwise = self.block(target, past);
                (Node::If { head, then, otherwise: Some(otherwise) }, past)
            }
            None => (Node::If { head, then: self.block(pc + 1, target), otherwise: None }, target),
        })
    }

    /// The outermost TRY whose body starts at `pc`, if its shape checks.
    fn try_at(&mut self, pc: u32, end: u32) -> Option<(Node, u32)> {
        let module = &self.program.module;
        let (index, handler, past) = module
            .handlers
            .iter()
            .enumerate()
            .filter(|(i, h)| h.start == pc && h.end >= pc && h.end < end && !self.active.contains(i))
            .filter_map(|(i, h)| match module.code.get(h.end as usize) {
                Some(Instr::Jump { target: past })
                    if h.target == h.end + 1 && *past >= h.target && *past <= end =>
                {
                    Some((i, *h, *past))
                }
                _ => None,
            })
            .max_by_key(|(_, h, _)| h.end)?;
        let catch = match module.slots.get(handler.catch_slot as usize) {
            Some(slot) if handler.catch_slot != NONE => {
                format!("CATCH AS {}:", self.program.string(slot.name))
            }
            _ => "CATCH:".to_string(),
        };
        self.active.push(index);
        let body = self.block(pc, handler.end);
        self.active.pop();
        let handler_nodes = self.block(handler.target, past);
        Some((Node::Try { body, catch, handler: handler_nodes }, past))
    }

    fn choose_at(&mut self, pc: u32, choice: u32, end: u32) -> Option<(Node, u32)> {
        let info = self.program.module.choices.get(choice as usize)?;
        let targets: Vec<u32> = info.options.iter().map(|o| o.target).collect();
        let labels: Vec<u32> = info.options.iter().map(|o| o.label).collect();
        let prompt = info.prompt;
        // Each option but the last ends in `JUMP past`, the same `past` for all.
        let past = match targets.get(1) {
            Some(&second) => match self.code(second.checked_sub(1)?) {
                Some(Instr::Jump { target }) => target,
                _ => return None,
            },
            None => return None,
        };
        let starts_right = targets.first() == Some(&(pc + 1));
        let ordered = targets.windows(2).all(|w| w[0] < w[1]);
        let joined = targets[1..]
            .iter()
            .all(|&t| t.checked_sub(1).and_then(|at| self.code(at)) == Some(Instr::Jump { target: past }));
        let last = *targets.last()?;
        if !(starts_right && ordered && joined && last <= past && past <= end) {
            return None;
        }
        let mut options = Vec::with_capacity(targets.len());
        for (i, (&from, label)) in targets.iter().zip(&labels).enumerate() {
            let to = targets.get(i + 1).map_or(past, |next| next - 1);
            let header = format!("option {} {}:", i + 1, quote(self.program.string(*label)));
            options.push((header, self.block(from, to)));
        }
        let text = if prompt == NONE { String::new() } else { format!(" {}", self.program.string(prompt)) };
        let head = format!("CHOOSE{text}  (line {})", self.program.line(pc));
        Some((Node::Choose { head, options }, past))
    }

    /// One instruction outside the constructs: its effect on the symbolic
    /// stack, and the effect it lists, if any.
    fn instr(
        &mut self,
        pc: u32,
        stack: &mut Vec<Sym>,
        junctions: &mut Vec<Junction>,
        resolved: &mut Vec<(u32, Sym)>,
        nodes: &mut Vec<Node>,
    ) {
        let program = self.program;
        let module = &program.module;
        let Some(instr) = self.code(pc) else { return };
        let line = program.line(pc);
        let effect =
            |nodes: &mut Vec<Node>, text: String| nodes.push(Node::Effect(format!("{text}  (line {line})")));
        let pop = |stack: &mut Vec<Sym>| stack.pop().unwrap_or_default();
        match instr {
            Instr::PushConst { index } => {
                let value = match module.constants.get(index as usize) {
                    Some(Constant::Str(s)) => {
                        let text = program.string(*s);
                        Sym::constant(text.to_string(), quote(text))
                    }
                    Some(Constant::Int(i)) => Sym::constant(i.to_string(), i.to_string()),
                    Some(Constant::Duration(d)) => Sym::constant(format_duration(*d), format_duration(*d)),
                    Some(Constant::Bool(b)) => {
                        Sym::constant(b.to_string(), if *b { "TRUE" } else { "FALSE" }.to_string())
                    }
                    None => Sym::plain("?".into(), "?".into()),
                };
                // The value an AND/OR exit pushes is part of the junction.
                if !resolved.iter().any(|(p, _)| Some(*p) == pc.checked_add(1)) {
                    stack.push(value);
                }
            }
            Instr::Load { slot } => {
                let name = module.slots.get(slot as usize).map_or("?", |s| program.string(s.name));
                stack.push(Sym::plain(format!("${{{name}}}"), name.to_string()));
            }
            Instr::LastRun {} => stack.push(Sym::plain("${LAST_RUN}".into(), "LAST_RUN".into())),
            Instr::Cost {} => stack.push(Sym::plain("${COST}".into(), "COST".into())),
            Instr::Field { field } => {
                let base = pop(stack);
                let name = Field::from_u8(field).map_or("?", Field::name);
                let raw = base.raw.strip_prefix("${").and_then(|b| b.strip_suffix('}')).unwrap_or(&base.raw);
                stack.push(Sym::plain(format!("${{{raw}.{name}}}"), format!("{}.{name}", base.cond)));
            }
            Instr::Interp { template, holes } | Instr::InterpShell { template, holes } => {
                let at = stack.len().saturating_sub(holes as usize);
                let mut values = stack.drain(at..);
                let (mut text, mut known) = (String::new(), true);
                for part in module.templates.get(template as usize).map_or(&[][..], |t| &t.parts[..]) {
                    match part {
                        TemplatePart::Text(s) => text.push_str(program.string(*s)),
                        TemplatePart::Hole => {
                            let value = values.next().unwrap_or_default();
                            known &= value.known;
                            text.push_str(&value.raw);
                        }
                    }
                }
                drop(values);
                let cond = format!("\"{text}\"");
                stack.push(Sym { known, ..Sym::plain(text, cond) });
            }
            Instr::Eq {} | Instr::Ne {} | Instr::Lt {} | Instr::Le {} | Instr::Gt {} | Instr::Ge {} => {
                let (b, a) = (pop(stack), pop(stack));
                let op = match instr {
                    Instr::Eq {} => "==",
                    Instr::Ne {} => "!=",
                    Instr::Lt {} => "<",
                    Instr::Le {} => "<=",
                    Instr::Gt {} => ">",
                    _ => ">=",
                };
                stack.push(Sym::test(format!("{} {op} {}", a.cond, b.cond), Strength::Test));
            }
            Instr::Contains {} | Instr::StartsWith {} | Instr::EndsWith {} | Instr::MatchesDynamic {} => {
                let (b, a) = (pop(stack), pop(stack));
                let op = match instr {
                    Instr::Contains {} => "CONTAINS",
                    Instr::StartsWith {} => "STARTS_WITH",
                    Instr::EndsWith {} => "ENDS_WITH",
                    _ => "MATCHES",
                };
                stack.push(Sym::test(format!("{} {op} {}", a.cond, b.cond), Strength::Test));
            }
            Instr::Matches { regex } => {
                let a = pop(stack);
                let pattern = module.regexes.get(regex as usize).map_or("?", |&s| program.string(s));
                stack.push(Sym::test(format!("{} MATCHES {}", a.cond, quote(pattern)), Strength::Test));
            }
            Instr::IsEmpty {} => {
                let a = pop(stack);
                stack.push(Sym::test(format!("{} IS_EMPTY", a.cond), Strength::Test));
            }
            Instr::Not {} => {
                let a = pop(stack);
                stack.push(Sym::test(format!("NOT {}", a.operand(Strength::Not)), Strength::Not));
            }
            Instr::And {} | Instr::Or {} => {
                let (b, a) = (pop(stack), pop(stack));
                stack.push(Sym::chain(&[a, b], matches!(instr, Instr::Or {})));
            }
            Instr::FileExists {} | Instr::FileIsEmpty {} => {
                let path = pop(stack);
                let test = if matches!(instr, Instr::FileExists {}) { "EXISTS" } else { "IS_EMPTY" };
                stack.push(Sym::test(format!("FILE {} {test}", path.cond), Strength::Test));
            }
            Instr::FileContains {} => {
                let (needle, path) = (pop(stack), pop(stack));
                stack.push(Sym::test(format!("FILE {} CONTAINS {}", path.cond, needle.cond), Strength::Test));
            }
            Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } if self.is_short_circuit(target) => {
                let operand = pop(stack);
                let is_or = matches!(instr, Instr::JumpIfTrue { .. });
                match junctions.iter_mut().find(|j| j.target == target && j.is_or == is_or) {
                    Some(junction) => junction.operands.push(operand),
                    None => junctions.push(Junction { target, is_or, operands: vec![operand] }),
                }
            }
            Instr::Jump { target } if junctions.iter().any(|j| j.target.checked_add(1) == Some(target)) => {
                // The last operand of an AND/OR: its value stands at `target`.
                let at = junctions.iter().position(|j| j.target.checked_add(1) == Some(target)).unwrap_or(0);
                let mut junction = junctions.remove(at);
                junction.operands.push(pop(stack));
                resolved.push((target, Sym::chain(&junction.operands, junction.is_or)));
            }
            Instr::Jump { .. } | Instr::JumpIfFalse { .. } | Instr::JumpIfTrue { .. } => {
                stack.clear();
                junctions.clear();
            }
            Instr::StepEnter { step } => {
                let name = program.string(module.steps.get(step as usize).map_or(NONE, |s| s.name));
                let label = match self.setup {
                    // A SETUP without a description is named SETUP.
                    Some(setup) if setup == step && name == "SETUP" => "SETUP".to_string(),
                    Some(setup) if setup == step => format!("SETUP \"{name}\""),
                    _ => format!("STEP \"{name}\""),
                };
                nodes.push(Node::StepOpen(format!("{label}  (line {line})")));
            }
            Instr::StepExit { .. } => nodes.push(Node::StepClose),
            Instr::Run { flags } => {
                let timeout = (flags & run_flags::TIMEOUT != 0).then(|| pop(stack));
                let dir = (flags & run_flags::DIR != 0).then(|| pop(stack));
                let mut text = format!("RUN {}", pop(stack).raw);
                if let Some(d) = dir {
                    text.push_str(&format!("  [in {}]", d.raw));
                }
                if let Some(t) = timeout {
                    text.push_str(&format!("  [timeout {}]", t.raw));
                }
                effect(nodes, text);
            }
            Instr::Write {} | Instr::Append {} => {
                let (content, path) = (pop(stack), pop(stack));
                let verb = if matches!(instr, Instr::Write {}) { "WRITE" } else { "APPEND" };
                let size = if content.known {
                    format!("{} bytes", content.raw.len())
                } else {
                    "size known only at run time".to_string()
                };
                effect(nodes, format!("{verb} {}  ({size})", path.raw));
            }
            Instr::Read { .. } => effect(nodes, format!("READ {}", pop(stack).raw)),
            Instr::Mkdir {} => effect(nodes, format!("MKDIR {}", pop(stack).raw)),
            Instr::Delete { recursive } => {
                let path = pop(stack);
                effect(
                    nodes,
                    format!("DELETE {}{}", path.raw, if recursive == 1 { " RECURSIVE" } else { "" }),
                );
            }
            Instr::Log {} => effect(nodes, format!("LOG {}", pop(stack).raw)),
            Instr::Env { name } => effect(nodes, format!("ENV {}={}", program.string(name), pop(stack).raw)),
            Instr::Prompt { .. } => effect(nodes, format!("PROMPT_AGENT {}", pop(stack).raw)),
            Instr::Pause {} => effect(nodes, format!("PAUSE {}", pop(stack).raw)),
            Instr::Review { .. } => effect(nodes, format!("REQUEST_REVIEW {}", pop(stack).raw)),
            Instr::Choose { choice } => {
                // A CHOOSE whose options do not have the compiler's shape:
                // listed alone, its options' effects follow flat.
                let prompt = module.choices.get(choice as usize).map_or(NONE, |c| c.prompt);
                let text =
                    if prompt == NONE { String::new() } else { format!(" {}", program.string(prompt)) };
                effect(nodes, format!("CHOOSE{text}"));
            }
            Instr::SetBudget { dim } => {
                let name = tisslang::cost::Dim::ALL.get(usize::from(dim)).map_or("?", |d| d.name());
                effect(nodes, format!("SET_BUDGET {name} = {}", pop(stack).raw));
            }
            Instr::Call { task } => {
                let Some(info) = module.tasks.get(task as usize) else { return };
                let text = format!("CALL \"{}\"  (line {line})", program.string(info.name));
                let body = self.call(task, info.entry);
                nodes.push(Node::Call { text, body });
            }
            _ => {
                // Other value instructions: keep the stack's shape.
                let (pops, pushes) = instr.stack_effect();
                stack.truncate(stack.len().saturating_sub(pops as usize));
                stack.extend((0..pushes).map(|_| Sym::plain("<value>".into(), "<value>".into())));
            }
        }
        self.items += 1;
    }

    /// A CALLed task's effects, expanded unless it is already being
    /// expanded (no cycle), the nesting is too deep, or the listing too long.
    fn call(&mut self, task: u32, entry: u32) -> Vec<Node> {
        if self.calls.contains(&task) || self.nesting >= MAX_NESTING || self.items >= MAX_ITEMS {
            return Vec::new();
        }
        let end = self.program.module.task_end(entry);
        self.calls.push(task);
        self.nesting += 1;
        let body = self.block(entry, end);
        self.nesting -= 1;
        self.calls.pop();
        body
    }
}

/// A string as a plan would write it: in quotes, with `"`, `\`, control
/// characters and a literal `${` escaped.
fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '$' if chars.peek() == Some(&'{') => out.push_str("\\$"),
            c if c.is_control() => out.push_str(&c.escape_default().to_string()),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether the listing of `nodes` shows any effect.
fn has_effects(nodes: &[Node]) -> bool {
    nodes.iter().any(|node| match node {
        Node::StepClose => false,
        Node::If { then, otherwise, .. } => {
            has_effects(then) || otherwise.as_deref().is_some_and(has_effects)
        }
        Node::Try { body, handler, .. } => has_effects(body) || has_effects(handler),
        Node::Effect(_) | Node::StepOpen(_) | Node::Call { .. } | Node::Choose { .. } => true,
    })
}

fn render(nodes: &[Node], indent: usize, out: &mut String) {
    let line = |depth: usize, text: &str, out: &mut String| {
        out.push_str(&"  ".repeat(depth));
        out.push_str(text);
        out.push('\n');
    };
    let mut depth = indent;
    for node in nodes {
        match node {
            Node::Effect(text) => line(depth, text, out),
            Node::StepOpen(text) => {
                line(depth, text, out);
                depth += 1;
            }
            Node::StepClose => depth = depth.saturating_sub(1).max(indent),
            Node::Call { text, body } => {
                line(depth, text, out);
                render(body, depth + 1, out);
            }
            Node::If { .. } | Node::Try { .. } if !has_effects(std::slice::from_ref(node)) => {}
            Node::If { head, then, otherwise } => {
                line(depth, &format!("IF {} then:", head.strip_prefix("IF ").unwrap_or(head)), out);
                render_arm(then, depth + 1, out);
                let mut otherwise = otherwise.as_deref();
                // ELSE IF chains read as one: `else IF ... then:` at the same depth.
                while let Some([Node::If { head, then, otherwise: next }]) = otherwise {
                    line(depth, &format!("else {head} then:"), out);
                    render_arm(then, depth + 1, out);
                    otherwise = next.as_deref();
                }
                if let Some(nodes) = otherwise {
                    line(depth, "else:", out);
                    render_arm(nodes, depth + 1, out);
                }
            }
            Node::Try { body, catch, handler } => {
                line(depth, "TRY:", out);
                render_arm(body, depth + 1, out);
                line(depth, catch, out);
                render_arm(handler, depth + 1, out);
            }
            Node::Choose { head, options } => {
                line(depth, head, out);
                for (header, body) in options {
                    line(depth + 1, header, out);
                    render_arm(body, depth + 2, out);
                }
            }
        }
    }
}

/// An arm's effects, or `(no effects)`.
fn render_arm(nodes: &[Node], depth: usize, out: &mut String) {
    if has_effects(nodes) {
        render(nodes, depth, out);
    } else {
        out.push_str(&"  ".repeat(depth));
        out.push_str("(no effects)\n");
    }
}

#[cfg(test)]
mod tests;
