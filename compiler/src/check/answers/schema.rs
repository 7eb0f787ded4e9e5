//! `tissc schema FILE TYPE` (book: reference/types.md): the JSON Schema of a plan's `TYPE`,
//! the one a typed prompt of that type sends (`tisslang::answer::schema`
//! over the same shape table the module keeps).

use serde_json::Value;
use tiss_support::suggest;

use super::table::{MAX_EXPANDED, expanded_size};
use crate::syntax::ast::{Item, Plan};

/// Why a type has no schema to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeSchemaError {
    /// No `TYPE name` in the plan: the names it does define, nearest first
    /// (all of them, in that order; empty when it defines none).
    Unknown { nearest: Vec<String> },
    /// The type spells out to more parts than a prompt may send (E0220).
    TooLarge,
}

impl TypeSchemaError {
    /// The message, for `name` in the plan `file`.
    pub fn message(&self, name: &str, file: &str) -> String {
        match self {
            TypeSchemaError::Unknown { nearest } if nearest.is_empty() => {
                format!(
                    "`{file}` defines no TYPE, so no `TYPE {name}`: write one after TASK, e.g. `TYPE {name} = {{ field: STRING }}`"
                )
            }
            TypeSchemaError::Unknown { nearest } => {
                const SHOWN: usize = 3;
                let shown: Vec<String> = nearest.iter().take(SHOWN).map(|n| format!("`{n}`")).collect();
                let more = match nearest.len().saturating_sub(SHOWN) {
                    0 => String::new(),
                    n => format!(" (and {n} more)"),
                };
                format!("`{file}` has no `TYPE {name}`; the nearest it defines: {}{more}", shown.join(", "))
            }
            TypeSchemaError::TooLarge => format!(
                "`TYPE {name}` spells out to more than {MAX_EXPANDED} parts: its JSON Schema is too large to send \
                 (a prompt of this type is E0220)"
            ),
        }
    }
}

/// The JSON Schema of `TYPE name` in `plan`, which has no errors: exactly
/// what a `PROMPT_AGENT … AS name` sends a provider.
pub fn type_schema(plan: &Plan, name: &str) -> Result<Value, TypeSchemaError> {
    let answers = crate::check::answer_types(plan);
    let Some(&shape) = answers.named.get(name) else {
        return Err(TypeSchemaError::Unknown { nearest: nearest(plan, name) });
    };
    if expanded_size(&answers.shapes, shape) > MAX_EXPANDED {
        return Err(TypeSchemaError::TooLarge);
    }
    Ok(tisslang::answer::schema::schema(&answers.shapes, shape))
}

/// Every TYPE name of `plan`, nearest to `name` first: the one
/// [`suggest::closest`] picks, then by edit distance, ties in source order.
fn nearest(plan: &Plan, name: &str) -> Vec<String> {
    let mut names: Vec<&str> = Vec::new();
    for item in &plan.items {
        if let Item::TypeDef(def) = item
            && !names.contains(&&*def.name.name)
        {
            names.push(&def.name.name);
        }
    }
    let best = suggest::closest(name, names.iter().copied());
    let limit = name.chars().count() + names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    // A stable sort: equal distances keep the plan's order.
    names.sort_by_key(|n| (Some(*n) != best, suggest::edit_distance(name, n, limit)));
    names.into_iter().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(src: &str) -> Plan {
        let frontend = crate::frontend("t.tiss", src.as_bytes());
        assert!(!frontend.has_errors(), "{:#?}", frontend.diagnostics);
        frontend.plan
    }

    const PLAN: &str = "TASK \"t\"\nTYPE Verdict = \"approve\" | \"reject\"\nTYPE Review = { verdict: Verdict, files?: LIST OF STRING }\nTYPE Unused = INT\nSTEP \"s\" {\n    PROMPT_AGENT \"q\" INTO r AS Review\n}\n";

    #[test]
    fn the_schema_of_a_named_type_and_of_one_no_prompt_uses() {
        let p = plan(PLAN);
        let review = type_schema(&p, "Review").unwrap();
        assert_eq!(
            review["properties"]["verdict"],
            serde_json::json!({"type": "string", "enum": ["approve", "reject"]})
        );
        assert_eq!(review["required"], serde_json::json!(["verdict", "files"]));
        assert_eq!(type_schema(&p, "Unused").unwrap(), serde_json::json!({"type": "integer"}));
    }

    #[test]
    fn an_unknown_name_lists_the_nearest_first() {
        let p = plan(PLAN);
        let Err(TypeSchemaError::Unknown { nearest }) = type_schema(&p, "Reveiw") else { panic!() };
        assert_eq!(nearest, ["Review", "Verdict", "Unused"]);
        let message = TypeSchemaError::Unknown { nearest }.message("Reveiw", "t.tiss");
        assert_eq!(
            message,
            "`t.tiss` has no `TYPE Reveiw`; the nearest it defines: `Review`, `Verdict`, `Unused`"
        );
        // Case differs: that one first.
        let Err(TypeSchemaError::Unknown { nearest }) = type_schema(&p, "verdict") else { panic!() };
        assert_eq!(nearest[0], "Verdict");
        let none = plan("TASK \"t\"\nSTEP \"s\" {\n    LOG \"x\"\n}\n");
        let err = type_schema(&none, "X").unwrap_err();
        assert_eq!(err, TypeSchemaError::Unknown { nearest: vec![] });
        assert!(err.message("X", "n.tiss").starts_with("`n.tiss` defines no TYPE"));
    }

    #[test]
    fn a_type_too_large_to_send_is_refused() {
        // Each level uses the one below twice: 2^20 parts.
        let mut src = String::from("TASK \"t\"\nTYPE T0 = INT\n");
        for i in 1..=20 {
            src.push_str(&format!("TYPE T{i} = {{ a: T{}, b: T{} }}\n", i - 1, i - 1));
        }
        src.push_str("STEP \"s\" {\n    LOG \"x\"\n}\n");
        assert_eq!(type_schema(&plan(&src), "T20"), Err(TypeSchemaError::TooLarge));
        assert!(type_schema(&plan(&src), "T5").is_ok());
    }
}
