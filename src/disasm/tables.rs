//! The tables after the code, and the manifest, as the listing shows them.

use std::fmt::Write as _;

use super::Disasm;
use super::text::{access, amount, bad, bound_inline, dim_name, level, plural, printable};
use crate::answer::{Shape, Shapes};
use crate::cost::Dim;
use crate::duration::literal as duration;
use crate::module::{NONE, TemplatePart};

/// A shape's description is cut past this many bytes: a shape used twice at
/// every level doubles its text with each (the compiler bounds a prompt's
/// type; a module made by hand need not).
const DESCRIBED: usize = 400;

impl Disasm<'_> {
    /// The answer shapes (TissLang 1.1), each as its type reads in a plan.
    /// A table that does not resolve (a module the verifier refuses) is
    /// shown as it is, children by index, with why.
    pub(super) fn shapes(&mut self) {
        let m = self.m;
        self.section("shapes", m.shapes.len());
        if m.shapes.is_empty() {
            return;
        }
        match Shapes::resolve(&m.shapes, |n| m.string(n)) {
            Ok(shapes) => {
                for i in 0..m.shapes.len() {
                    line!(self, "  #{i:<4} {}", printable(&shapes.describe_within(i as u32, DESCRIBED)));
                }
            }
            Err(why) => {
                line!(self, "  (does not resolve: {})", printable(&why));
                for (i, shape) in m.shapes.iter().enumerate() {
                    line!(self, "  #{i:<4} {}", self.raw_shape(shape));
                }
            }
        }
    }

    /// A shape of the module as it is: names as strings, children by index.
    fn raw_shape(&self, shape: &Shape) -> String {
        match shape {
            Shape::Str => "STRING".into(),
            Shape::Int => "INT".into(),
            Shape::Bool => "BOOL".into(),
            Shape::Enum(names) => names.iter().map(|&n| self.string_short(n)).collect::<Vec<_>>().join(" | "),
            Shape::List(e) => format!("LIST OF #{e}"),
            Shape::Record(fields) => {
                let fields: Vec<String> = fields
                    .iter()
                    .map(|f| {
                        let optional = if f.optional { "?" } else { "" };
                        format!("{}{optional}: #{}", self.name(f.name), f.shape)
                    })
                    .collect();
                format!("{{ {} }}", fields.join(", "))
            }
        }
    }

    pub(super) fn steps(&mut self) {
        let m = self.m;
        self.section("steps", m.steps.len());
        for (i, s) in m.steps.iter().enumerate() {
            let parent = if s.parent == NONE { "-".to_string() } else { format!("#{}", s.parent) };
            line!(
                self,
                "  #{i:<4} {}  line {}:{}  parent {parent}  depth {}",
                self.string_full(s.name),
                s.line,
                s.column,
                s.depth
            );
            line!(self, "         bound {}", bound_inline(&s.bound));
        }
    }

    pub(super) fn tasks(&mut self) {
        let m = self.m;
        self.section("tasks", m.tasks.len());
        for (i, t) in m.tasks.iter().enumerate() {
            line!(
                self,
                "  #{i:<4} {}  entry {}  line {}",
                self.string_full(t.name),
                self.target(t.entry),
                t.line
            );
            line!(self, "         bound {}", bound_inline(&t.bound));
        }
    }

    pub(super) fn handlers(&mut self) {
        let m = self.m;
        self.section("handlers", m.handlers.len());
        for (i, h) in m.handlers.iter().enumerate() {
            line!(
                self,
                "  #{i:<4} {:04}..{:04} -> {}  stack depth {}  step depth {}  catch {}",
                h.start,
                h.end,
                self.target(h.target),
                h.stack_depth,
                h.step_depth,
                self.opt_slot(h.catch_slot)
            );
        }
    }

    pub(super) fn regexes(&mut self) {
        let m = self.m;
        self.section("regexes", m.regexes.len());
        for (i, &s) in m.regexes.iter().enumerate() {
            line!(self, "  #{i:<4} ${s} {}", self.string_full(s));
        }
    }

    pub(super) fn templates(&mut self) {
        let m = self.m;
        self.section("templates", m.templates.len());
        for (i, t) in m.templates.iter().enumerate() {
            let holes = t.parts.iter().filter(|p| matches!(p, TemplatePart::Hole)).count();
            line!(self, "  #{i:<4} {}  ({})", self.template_text(t, None), plural(holes, "hole"));
        }
    }

    pub(super) fn assertions(&mut self) {
        let m = self.m;
        self.section("assertions", m.assertions.len());
        for (i, a) in m.assertions.iter().enumerate() {
            line!(self, "  #{i:<4} {}", self.written(a.condition));
            if a.message != NONE {
                line!(self, "         MESSAGE {}", self.string_full(a.message));
            }
            for o in &a.observed {
                line!(self, "         shows {} = {}", self.written(o.text), self.path_ref(&o.path));
            }
        }
    }

    pub(super) fn prompts(&mut self) {
        let m = self.m;
        self.section("prompts", m.prompts.len());
        for (i, p) in m.prompts.iter().enumerate() {
            // A typed answer: its shape, and the name and schema it is sent with.
            let answer = match p.answer {
                Some(a) => {
                    let shape = if (a.shape as usize) < m.shapes.len() {
                        format!("#{}", a.shape)
                    } else {
                        bad(a.shape)
                    };
                    format!("  AS {shape}  schema {} ${}", self.string_full(a.name), a.schema)
                }
                None => String::new(),
            };
            line!(
                self,
                "  #{i:<4} {}  INTO {}{answer}",
                self.context(&p.context, p.default_context),
                self.opt_slot(p.into)
            );
        }
    }

    pub(super) fn choices(&mut self) {
        let m = self.m;
        self.section("choices", m.choices.len());
        for (i, c) in m.choices.iter().enumerate() {
            line!(
                self,
                "  #{i:<4} {}",
                if c.prompt == NONE { "-".to_string() } else { self.string_full(c.prompt) }
            );
            for (k, o) in c.options.iter().enumerate() {
                line!(self, "         {}. {} -> {}", k + 1, self.string_full(o.label), self.target(o.target));
            }
        }
    }

    pub(super) fn estimates(&mut self) {
        let m = self.m;
        self.section("estimates", m.estimates.len());
        for (i, b) in m.estimates.iter().enumerate() {
            line!(self, "  #{i:<4} {}", bound_inline(b));
        }
    }

    pub(super) fn plan_bound(&mut self) {
        let b = self.m.bound;
        line!(self);
        line!(self, "plan bound:");
        for dim in Dim::ALL {
            let (min, max) = b.get(dim);
            let unit = if dim == Dim::ExecutionTime { " ms" } else { "" };
            line!(self, "  {:<15} {} .. {}{unit}", dim.name(), amount(min), amount(max));
        }
    }

    pub(super) fn manifest(&mut self) {
        let man = &self.m.manifest;
        line!(self);
        line!(self, "manifest:");

        self.subsection("commands", man.commands.len());
        for c in &man.commands {
            let shown = |s| self.literal(s, c.dynamic);
            let mut text = format!("    line {:<5} RUN {}", c.line, shown(c.text));
            if c.dir != NONE {
                let _ = write!(text, " IN {}", shown(c.dir));
            }
            if let Some(ms) = c.timeout_ms {
                let _ = write!(text, " TIMEOUT {}", duration(ms));
            }
            if c.dynamic {
                text.push_str("  (dynamic)");
            }
            if c.step != NONE {
                let _ = write!(text, "  in step #{} {}", c.step, self.step_name(c.step));
            }
            line!(self, "{text}");
        }

        self.subsection("paths", man.paths.len());
        for p in &man.paths {
            let dynamic = if p.dynamic { "  (dynamic)" } else { "" };
            line!(
                self,
                "    line {:<5} {:<16} {}{dynamic}",
                p.line,
                access(p.access),
                self.literal(p.path, p.dynamic)
            );
        }

        self.subsection("prompts", man.prompts.len());
        for p in &man.prompts {
            let context = if p.context.is_empty() {
                "default context".to_string()
            } else {
                p.context.iter().map(|&s| self.name(s)).collect::<Vec<_>>().join(", ")
            };
            // The manifest does not say whether a query or message has holes;
            // the source text of one that has them contains `${`.
            let query = self.literal(p.query, self.has_holes(p.query));
            line!(self, "    line {:<5} {query}  WITH {context}", p.line);
        }

        self.subsection("interactions", man.interactions.len());
        for x in &man.interactions {
            let kind = match x.kind {
                crate::module::InteractionKind::Pause => "PAUSE",
                crate::module::InteractionKind::Review => "REQUEST_REVIEW",
                crate::module::InteractionKind::Choose => "CHOOSE",
            };
            let text =
                if x.text == NONE { "-".to_string() } else { self.literal(x.text, self.has_holes(x.text)) };
            let mut shown = format!("    line {:<5} {kind:<14} {text}", x.line);
            if !x.options.is_empty() {
                let options: Vec<String> = x.options.iter().map(|&o| self.string_full(o)).collect();
                let _ = write!(shown, "  options {}", options.join(", "));
            }
            line!(self, "{shown}");
        }

        self.subsection("budgets", man.budgets.len());
        for b in &man.budgets {
            let value = match (b.value, Dim::ALL.get(usize::from(b.dim))) {
                (None, _) => "<from a variable>".to_string(),
                (Some(v), Some(Dim::ExecutionTime)) => duration(v),
                (Some(v), _) => v.to_string(),
            };
            line!(self, "    line {:<5} {} = {value}", b.line, dim_name(b.dim));
        }

        self.subsection("env", man.env.len());
        for &(name, line) in &man.env {
            line!(self, "    line {line:<5} {}", self.name(name));
        }

        line!(self, "  risk: {}", level(man.risk.level));
        for r in &man.risk.reasons {
            line!(self, "    line {:<5} {:<6} {}", r.line, level(r.level()), printable(&self.m.risk_text(r)));
        }
    }

    pub(super) fn subsection(&mut self, title: &str, count: usize) {
        if count == 0 {
            line!(self, "  {title}: none");
        } else {
            line!(self, "  {title} ({count}):");
        }
    }
}
