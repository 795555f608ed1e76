//! Whether a value matches a [`Schema`]: every mismatch, each with the
//! place in the value (`$.items[2].name`) and what was expected.

use serde_json::Value;

use super::schema::{JsonType, Keywords, Node, Schema};
use crate::formats::json_read::type_name;

/// At most this many mismatches are reported (the first ones found).
pub const MAX_ERRORS: usize = 20;
/// `$ref`s followed in a row before the schema counts as endless.
const MAX_DEPTH: usize = 64;

/// The mismatches of `value` against `schema`; empty when it matches.
pub fn validate(schema: &Schema, value: &Value) -> Vec<String> {
    let mut check = Check {
        schema,
        errors: Vec::new(),
    };
    check.node(&schema.root, value, "$", 0);
    check.errors.truncate(MAX_ERRORS);
    check.errors
}

/// Whether `value` matches `schema`.
pub fn matches(schema: &Schema, value: &Value) -> bool {
    validate(schema, value).is_empty()
}

struct Check<'s> {
    schema: &'s Schema,
    errors: Vec<String>,
}

impl Check<'_> {
    fn fail(&mut self, at: &str, message: String) {
        if self.errors.len() <= MAX_ERRORS {
            self.errors.push(format!("{at}: {message}"));
        }
    }

    /// Whether `value` matches `node`, without recording why not.
    fn passes(&self, node: &Node, value: &Value, depth: usize) -> bool {
        let mut inner = Check {
            schema: self.schema,
            errors: Vec::new(),
        };
        inner.node(node, value, "$", depth);
        inner.errors.is_empty()
    }

    fn node(&mut self, node: &Node, value: &Value, at: &str, depth: usize) {
        match node {
            Node::Bool(true) => {}
            Node::Bool(false) => self.fail(at, "no value is allowed here".to_owned()),
            Node::Keywords(k) => self.keywords(k, value, at, depth),
        }
    }

    fn keywords(&mut self, k: &Keywords, value: &Value, at: &str, depth: usize) {
        if let Some(target) = k.reference {
            if depth >= MAX_DEPTH {
                return self.fail(at, "the schema refers to itself without end".to_owned());
            }
            let schema = self.schema;
            self.node(schema.target(target), value, at, depth + 1);
        }
        if let Some(types) = &k.types {
            if !types.iter().any(|t| is_type(value, *t)) {
                let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
                return self.fail(
                    at,
                    format!("expected {}, got {}", names.join(" or "), type_name(value)),
                );
            }
        }
        if let Some(c) = &k.constant {
            if !equal(c, value) {
                self.fail(at, format!("expected {c}"));
            }
        }
        if let Some(list) = &k.enumeration {
            if !list.iter().any(|v| equal(v, value)) {
                let shown: Vec<String> = list.iter().map(Value::to_string).collect();
                self.fail(at, format!("expected one of {}", shown.join(", ")));
            }
        }
        match value {
            Value::Number(_) => self.number(k, value, at),
            Value::String(s) => self.string(k, s, at),
            Value::Array(items) => self.array(k, items, at, depth),
            Value::Object(_) => self.object(k, value, at, depth),
            _ => {}
        }
        for branch in &k.all_of {
            self.node(branch, value, at, depth);
        }
        if !k.any_of.is_empty() && !k.any_of.iter().any(|b| self.passes(b, value, depth)) {
            let n = k.any_of.len();
            self.fail(at, format!("matches none of the {n} schemas of anyOf"));
        }
        if !k.one_of.is_empty() {
            let n = k
                .one_of
                .iter()
                .filter(|b| self.passes(b, value, depth))
                .count();
            if n != 1 {
                let total = k.one_of.len();
                self.fail(
                    at,
                    format!("matches {n} of the {total} schemas of oneOf (exactly one must match)"),
                );
            }
        }
        if let Some(not) = &k.not {
            if self.passes(not, value, depth) {
                self.fail(at, "matches the schema of not".to_owned());
            }
        }
    }

    fn number(&mut self, k: &Keywords, value: &Value, at: &str) {
        let Some(n) = value.as_f64() else { return };
        if let Some(min) = k.minimum.filter(|m| n < *m) {
            self.fail(at, format!("{value} is less than the minimum {}", num(min)));
        }
        if let Some(max) = k.maximum.filter(|m| n > *m) {
            self.fail(
                at,
                format!("{value} is greater than the maximum {}", num(max)),
            );
        }
        if let Some(min) = k.exclusive_minimum.filter(|m| n <= *m) {
            self.fail(at, format!("{value} must be greater than {}", num(min)));
        }
        if let Some(max) = k.exclusive_maximum.filter(|m| n >= *m) {
            self.fail(at, format!("{value} must be less than {}", num(max)));
        }
        if let Some(step) = k.multiple_of {
            let q = n / step;
            if (q - q.round()).abs() > 1e-9 * q.abs().max(1.0) {
                self.fail(at, format!("{value} is not a multiple of {}", num(step)));
            }
        }
    }

    fn string(&mut self, k: &Keywords, s: &str, at: &str) {
        let length = s.chars().count() as u64;
        if let Some(min) = k.min_length.filter(|m| length < *m) {
            self.fail(
                at,
                format!("{length} characters, fewer than minLength {min}"),
            );
        }
        if let Some(max) = k.max_length.filter(|m| length > *m) {
            self.fail(
                at,
                format!("{length} characters, more than maxLength {max}"),
            );
        }
    }

    fn array(&mut self, k: &Keywords, items: &[Value], at: &str, depth: usize) {
        let n = items.len() as u64;
        if let Some(min) = k.min_items.filter(|m| n < *m) {
            self.fail(at, format!("{n} items, fewer than minItems {min}"));
        }
        if let Some(max) = k.max_items.filter(|m| n > *m) {
            self.fail(at, format!("{n} items, more than maxItems {max}"));
        }
        if k.unique_items {
            for (i, a) in items.iter().enumerate() {
                if let Some(j) = items[..i].iter().position(|b| equal(a, b)) {
                    self.fail(at, format!("items {j} and {i} are equal (uniqueItems)"));
                    break;
                }
            }
        }
        if let Some(schema) = &k.items {
            for (i, item) in items.iter().enumerate() {
                self.node(schema, item, &format!("{at}[{i}]"), depth);
            }
        }
    }

    fn object(&mut self, k: &Keywords, value: &Value, at: &str, depth: usize) {
        let Value::Object(map) = value else { return };
        let n = map.len() as u64;
        if let Some(min) = k.min_properties.filter(|m| n < *m) {
            self.fail(
                at,
                format!("{n} properties, fewer than minProperties {min}"),
            );
        }
        if let Some(max) = k.max_properties.filter(|m| n > *m) {
            self.fail(at, format!("{n} properties, more than maxProperties {max}"));
        }
        for name in &k.required {
            if !map.contains_key(name) {
                self.fail(at, format!("the required property \"{name}\" is missing"));
            }
        }
        for (name, item) in map {
            let here = member(at, name);
            match k.properties.iter().find(|(p, _)| p == name) {
                Some((_, schema)) => self.node(schema, item, &here, depth),
                None => match &k.additional {
                    Some(Node::Bool(false)) => {
                        self.fail(at, format!("the property \"{name}\" is not allowed"))
                    }
                    Some(schema) => self.node(schema, item, &here, depth),
                    None => {}
                },
            }
        }
    }
}

/// `at.name`, or `at["name"]` for a name that is not an identifier.
fn member(at: &str, name: &str) -> String {
    let plain = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!("{at}.{name}")
    } else {
        format!("{at}[{}]", Value::String(name.to_owned()))
    }
}

fn is_type(value: &Value, t: JsonType) -> bool {
    match t {
        JsonType::Null => value.is_null(),
        JsonType::Boolean => value.is_boolean(),
        JsonType::Number => value.is_number(),
        JsonType::Integer => match value {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        JsonType::String => value.is_string(),
        JsonType::Array => value.is_array(),
        JsonType::Object => value.is_object(),
    }
}

fn num(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        f.to_string()
    }
}

/// JSON equality as JSON Schema has it: `1` and `1.0` are equal.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Schema {
        Schema::read(&v, "outputSchema").unwrap()
    }

    #[test]
    fn a_matching_value_has_no_errors() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "verdict": {"enum": ["ship", "hold"]},
                "score": {"type": "integer", "minimum": 0, "maximum": 10},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
            },
            "required": ["verdict", "score"],
            "additionalProperties": false
        }));
        assert!(validate(
            &s,
            &json!({"verdict": "ship", "score": 7, "tags": ["a", "b"]})
        )
        .is_empty());
        assert!(validate(&s, &json!({"verdict": "hold", "score": 7.0})).is_empty());
    }

    #[test]
    fn each_mismatch_names_its_place() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "verdict": {"enum": ["ship", "hold"]},
                "score": {"type": "integer", "minimum": 0, "maximum": 10},
                "tags": {"type": "array", "items": {"type": "string", "minLength": 2}, "uniqueItems": true},
                "odd key": {"const": 1}
            },
            "required": ["verdict", "score"],
            "additionalProperties": false
        }));
        let errors = validate(
            &s,
            &json!({"verdict": "maybe", "tags": ["ok", "x", 3, "ok"], "extra": true, "odd key": 2}),
        );
        assert_eq!(
            errors,
            [
                "$: the required property \"score\" is missing",
                "$.verdict: expected one of \"ship\", \"hold\"",
                "$.tags: items 0 and 3 are equal (uniqueItems)",
                "$.tags[1]: 1 characters, fewer than minLength 2",
                "$.tags[2]: expected string, got a number",
                "$: the property \"extra\" is not allowed",
                "$[\"odd key\"]: expected 1",
            ]
        );
        assert_eq!(
            validate(&s, &json!([1])),
            ["$: expected object, got an array"]
        );
        assert_eq!(
            validate(&s, &json!({"verdict": "ship", "score": 11.5})),
            ["$.score: expected integer, got a number",]
        );
        assert_eq!(
            validate(&s, &json!({"verdict": "ship", "score": 11})),
            ["$.score: 11 is greater than the maximum 10"]
        );
    }

    #[test]
    fn combinators_refs_and_numbers() {
        let s = schema(json!({
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                    "required": ["children"]
                }
            },
            "anyOf": [{"type": "string"}, {"$ref": "#/$defs/node"}],
        }));
        assert!(matches(&s, &json!("leaf")));
        assert!(matches(&s, &json!({"children": [{"children": []}]})));
        assert_eq!(
            validate(&s, &json!({"children": [{}]})),
            ["$: matches none of the 2 schemas of anyOf"]
        );
        let one = schema(json!({"oneOf": [{"type": "integer"}, {"type": "number"}]}));
        assert!(matches(&one, &json!(1.5)));
        assert_eq!(
            validate(&one, &json!(2)),
            ["$: matches 2 of the 2 schemas of oneOf (exactly one must match)"]
        );
        let all = schema(
            json!({"allOf": [{"minimum": 1}, {"exclusiveMaximum": 3}], "multipleOf": 0.5, "not": {"const": 2}}),
        );
        assert!(matches(&all, &json!(2.5)));
        assert_eq!(validate(&all, &json!(3)), ["$: 3 must be less than 3"]);
        assert_eq!(
            validate(&all, &json!(1.2)),
            ["$: 1.2 is not a multiple of 0.5"]
        );
        assert_eq!(validate(&all, &json!(2)), ["$: matches the schema of not"]);
        let endless = schema(json!({"$ref": "#"}));
        assert_eq!(
            validate(&endless, &json!(1)),
            ["$: the schema refers to itself without end"]
        );
        let nothing = schema(json!(false));
        assert_eq!(
            validate(&nothing, &json!(null)),
            ["$: no value is allowed here"]
        );
    }

    #[test]
    fn errors_are_bounded_and_equality_is_numeric() {
        let s = schema(json!({"type": "array", "items": {"type": "string"}}));
        let many: Vec<Value> = (0..100).map(|i| json!(i)).collect();
        assert_eq!(validate(&s, &Value::Array(many)).len(), MAX_ERRORS);
        assert!(equal(&json!(1), &json!(1.0)));
        assert!(equal(&json!({"a": [1]}), &json!({"a": [1.0]})));
        assert!(!equal(&json!("1"), &json!(1)));
    }
}
