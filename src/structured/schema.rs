//! An output schema read once: the JSON Schema keywords an app uses for a
//! reply's shape, each checked where it stands. A keyword this reader does
//! not know is an error naming it (never ignored: a schema that says more
//! than is checked would pass replies it forbids).
//!
//! Known: `type`, `properties`, `required`, `additionalProperties`,
//! `items`, `minItems`, `maxItems`, `uniqueItems`, `minProperties`,
//! `maxProperties`, `enum`, `const`, `minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength`,
//! `maxLength`, `anyOf`, `oneOf`, `allOf`, `not`, `$ref` to `#`,
//! `#/$defs/<name>` or `#/definitions/<name>`, and the annotations
//! (`title`, `description`, `$schema`, `$id`, `$comment`, `default`,
//! `examples`, `format`, `readOnly`, `writeOnly`, `deprecated`), which
//! check nothing (`format` is an annotation, as JSON Schema's default
//! vocabulary has it).

use serde_json::{Map, Value};

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::type_name;

/// The JSON types `type` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    Null,
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object,
}

impl JsonType {
    fn parse(name: &str) -> Option<JsonType> {
        Some(match name {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "integer" => JsonType::Integer,
            "number" => JsonType::Number,
            "string" => JsonType::String,
            "array" => JsonType::Array,
            "object" => JsonType::Object,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Integer => "integer",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

/// Where a `$ref` points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Root,
    /// The index in [`Schema::defs`].
    Def(usize),
}

/// One schema: `true`, `false`, or an object's keywords.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Bool(bool),
    Keywords(Box<Keywords>),
}

/// The keywords of a schema object (absent ones are `None` or empty).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keywords {
    pub types: Option<Vec<JsonType>>,
    pub properties: Vec<(String, Node)>,
    pub required: Vec<String>,
    pub additional: Option<Node>,
    pub items: Option<Node>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub unique_items: bool,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub enumeration: Option<Vec<Value>>,
    pub constant: Option<Value>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_minimum: Option<f64>,
    pub exclusive_maximum: Option<f64>,
    pub multiple_of: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub any_of: Vec<Node>,
    pub one_of: Vec<Node>,
    pub all_of: Vec<Node>,
    pub not: Option<Node>,
    pub reference: Option<Target>,
}

/// A schema read: its root and its local definitions.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    pub root: Node,
    pub defs: Vec<(String, Node)>,
    /// The schema as given (stated in prompts, handed to agents).
    pub source: Value,
}

const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "$schema",
    "$id",
    "$comment",
    "default",
    "examples",
    "format",
    "readOnly",
    "writeOnly",
    "deprecated",
];

/// Every keyword this reader checks, for messages.
const KNOWN: &str = "type, properties, required, additionalProperties, items, minItems, maxItems, \
uniqueItems, minProperties, maxProperties, enum, const, minimum, maximum, exclusiveMinimum, \
exclusiveMaximum, multipleOf, minLength, maxLength, anyOf, oneOf, allOf, not, $ref, $defs, \
definitions and the annotations";

impl Schema {
    /// Reads `value` (a JSON Schema); `field` names it in errors
    /// (`options.outputSchema`).
    pub fn read(value: &Value, field: &str) -> Result<Schema> {
        let mut names = Vec::new();
        if let Value::Object(map) = value {
            for key in ["$defs", "definitions"] {
                match map.get(key) {
                    None => {}
                    Some(Value::Object(defs)) => {
                        for name in defs.keys() {
                            names.push(format!("#/{key}/{name}"));
                        }
                    }
                    Some(other) => {
                        return Err(invalid(format!(
                            "{field}.{key} must be an object, got {}",
                            type_name(other)
                        )))
                    }
                }
            }
        }
        let reader = Reader { names: &names };
        let root = reader.node(value, field, true)?;
        let mut defs = Vec::new();
        if let Value::Object(map) = value {
            for key in ["$defs", "definitions"] {
                if let Some(Value::Object(found)) = map.get(key) {
                    for (name, schema) in found {
                        let at = format!("{field}.{key}.{name}");
                        defs.push((format!("#/{key}/{name}"), reader.node(schema, &at, false)?));
                    }
                }
            }
        }
        Ok(Schema {
            root,
            defs,
            source: value.clone(),
        })
    }

    /// The schema `target` names.
    pub fn target(&self, target: Target) -> &Node {
        match target {
            Target::Root => &self.root,
            Target::Def(i) => &self.defs[i].1,
        }
    }
}

fn invalid(message: String) -> AgentContextError {
    AgentContextError::invalid(message)
}

struct Reader<'a> {
    /// The `$ref`s that resolve, in the order of [`Schema::defs`].
    names: &'a [String],
}

impl Reader<'_> {
    fn node(&self, value: &Value, at: &str, root: bool) -> Result<Node> {
        match value {
            Value::Bool(b) => Ok(Node::Bool(*b)),
            Value::Object(map) => Ok(Node::Keywords(Box::new(self.keywords(map, at, root)?))),
            other => Err(invalid(format!(
                "{at} must be a schema (an object or a boolean), got {}",
                type_name(other)
            ))),
        }
    }

    fn nodes(&self, value: &Value, at: &str) -> Result<Vec<Node>> {
        let Value::Array(list) = value else {
            return Err(invalid(format!(
                "{at} must be an array of schemas, got {}",
                type_name(value)
            )));
        };
        if list.is_empty() {
            return Err(invalid(format!("{at} must not be empty")));
        }
        list.iter()
            .enumerate()
            .map(|(i, v)| self.node(v, &format!("{at}[{i}]"), false))
            .collect()
    }

    fn keywords(&self, map: &Map<String, Value>, at: &str, root: bool) -> Result<Keywords> {
        let mut k = Keywords::default();
        for (key, value) in map {
            let here = format!("{at}.{key}");
            match key.as_str() {
                "type" => k.types = Some(types(value, &here)?),
                "properties" => {
                    let Value::Object(props) = value else {
                        return Err(invalid(format!(
                            "{here} must be an object, got {}",
                            type_name(value)
                        )));
                    };
                    for (name, schema) in props {
                        let node = self.node(schema, &format!("{here}.{name}"), false)?;
                        k.properties.push((name.clone(), node));
                    }
                }
                "required" => k.required = strings(value, &here)?,
                "additionalProperties" => k.additional = Some(self.node(value, &here, false)?),
                "items" => k.items = Some(self.node(value, &here, false)?),
                "minItems" => k.min_items = Some(count(value, &here)?),
                "maxItems" => k.max_items = Some(count(value, &here)?),
                "uniqueItems" => k.unique_items = boolean(value, &here)?,
                "minProperties" => k.min_properties = Some(count(value, &here)?),
                "maxProperties" => k.max_properties = Some(count(value, &here)?),
                "minLength" => k.min_length = Some(count(value, &here)?),
                "maxLength" => k.max_length = Some(count(value, &here)?),
                "enum" => match value {
                    Value::Array(list) if !list.is_empty() => k.enumeration = Some(list.clone()),
                    _ => {
                        return Err(invalid(format!(
                            "{here} must be a non-empty array, got {}",
                            type_name(value)
                        )))
                    }
                },
                "const" => k.constant = Some(value.clone()),
                "minimum" => k.minimum = Some(number(value, &here)?),
                "maximum" => k.maximum = Some(number(value, &here)?),
                "exclusiveMinimum" => k.exclusive_minimum = Some(number(value, &here)?),
                "exclusiveMaximum" => k.exclusive_maximum = Some(number(value, &here)?),
                "multipleOf" => {
                    let n = number(value, &here)?;
                    if n <= 0.0 {
                        return Err(invalid(format!("{here} must be greater than 0, got {n}")));
                    }
                    k.multiple_of = Some(n);
                }
                "anyOf" => k.any_of = self.nodes(value, &here)?,
                "oneOf" => k.one_of = self.nodes(value, &here)?,
                "allOf" => k.all_of = self.nodes(value, &here)?,
                "not" => k.not = Some(self.node(value, &here, false)?),
                "$ref" => k.reference = Some(self.target(value, &here)?),
                // Read by `Schema::read` (only at the root).
                "$defs" | "definitions" if root => {}
                "$defs" | "definitions" => {
                    return Err(invalid(format!(
                        "{here}: definitions are read at the schema's root only (move them to its $defs)"
                    )))
                }
                other if ANNOTATIONS.contains(&other) => {}
                other => {
                    return Err(invalid(format!(
                        "{here}: the keyword \"{other}\" is not supported in an output schema (supported: {KNOWN})"
                    )))
                }
            }
        }
        Ok(k)
    }

    fn target(&self, value: &Value, at: &str) -> Result<Target> {
        let Value::String(name) = value else {
            return Err(invalid(format!(
                "{at} must be a string, got {}",
                type_name(value)
            )));
        };
        if name == "#" {
            return Ok(Target::Root);
        }
        match self.names.iter().position(|n| n == name) {
            Some(i) => Ok(Target::Def(i)),
            None => Err(invalid(format!(
                "{at}: \"{name}\" does not name a definition of this schema (a $ref is \"#\", \"#/$defs/<name>\" or \"#/definitions/<name>\")"
            ))),
        }
    }
}

fn types(value: &Value, at: &str) -> Result<Vec<JsonType>> {
    let one = |v: &Value| -> Result<JsonType> {
        v.as_str().and_then(JsonType::parse).ok_or_else(|| {
            invalid(format!(
                "{at} must name JSON types (null, boolean, integer, number, string, array, object), got {v}"
            ))
        })
    };
    match value {
        Value::Array(list) if !list.is_empty() => list.iter().map(one).collect(),
        Value::Array(_) => Err(invalid(format!("{at} must not be empty"))),
        other => Ok(vec![one(other)?]),
    }
}

fn strings(value: &Value, at: &str) -> Result<Vec<String>> {
    match value {
        Value::Array(list) => list
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(str::to_owned).ok_or_else(|| {
                    invalid(format!("{at}[{i}] must be a string, got {}", type_name(v)))
                })
            })
            .collect(),
        other => Err(invalid(format!(
            "{at} must be an array of strings, got {}",
            type_name(other)
        ))),
    }
}

fn count(value: &Value, at: &str) -> Result<u64> {
    value
        .as_u64()
        .or_else(|| {
            value
                .as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f <= u64::MAX as f64)
                .map(|f| f as u64)
        })
        .ok_or_else(|| {
            invalid(format!(
                "{at} must be a whole number ≥ 0, got {}",
                shown(value)
            ))
        })
}

fn number(value: &Value, at: &str) -> Result<f64> {
    value
        .as_f64()
        .ok_or_else(|| invalid(format!("{at} must be a number, got {}", shown(value))))
}

fn boolean(value: &Value, at: &str) -> Result<bool> {
    value
        .as_bool()
        .ok_or_else(|| invalid(format!("{at} must be a boolean, got {}", type_name(value))))
}

fn shown(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        other => type_name(other).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<Schema> {
        Schema::read(&v, "options.outputSchema")
    }

    #[test]
    fn reads_the_keywords_an_app_uses() {
        let s = read(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Review",
            "type": "object",
            "properties": {
                "verdict": {"enum": ["ship", "hold"]},
                "score": {"type": "integer", "minimum": 0, "maximum": 10},
                "notes": {"type": "array", "items": {"$ref": "#/$defs/note"}, "maxItems": 5}
            },
            "required": ["verdict"],
            "additionalProperties": false,
            "$defs": {"note": {"type": "string", "minLength": 1}}
        }))
        .unwrap();
        assert_eq!(s.defs.len(), 1);
        assert_eq!(s.defs[0].0, "#/$defs/note");
        let Node::Keywords(k) = &s.root else {
            panic!("keywords")
        };
        assert_eq!(k.types, Some(vec![JsonType::Object]));
        assert_eq!(k.properties.len(), 3);
        assert_eq!(k.additional, Some(Node::Bool(false)));
    }

    #[test]
    fn an_unknown_keyword_is_named_with_its_place() {
        let e = read(
            json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}}),
        )
        .unwrap_err();
        assert_eq!(e.code(), crate::error::ErrorCode::InvalidInput);
        assert!(
            e.message().starts_with(
                "options.outputSchema.properties.a.pattern: the keyword \"pattern\" is not supported"
            ),
            "{}",
            e.message()
        );
        let e = read(json!({"type": "object", "patternProperties": {}})).unwrap_err();
        assert!(
            e.message().contains("\"patternProperties\""),
            "{}",
            e.message()
        );
    }

    #[test]
    fn bad_values_and_refs_name_the_field() {
        let cases = [
            (json!(3), "options.outputSchema must be a schema (an object or a boolean), got a number"),
            (json!({"type": "text"}), "options.outputSchema.type must name JSON types"),
            (json!({"required": "a"}), "options.outputSchema.required must be an array of strings, got a string"),
            (json!({"minLength": -1}), "options.outputSchema.minLength must be a whole number ≥ 0, got -1"),
            (json!({"anyOf": []}), "options.outputSchema.anyOf must not be empty"),
            (json!({"$ref": "#/$defs/x"}), "options.outputSchema.$ref: \"#/$defs/x\" does not name a definition"),
            (json!({"$ref": "https://example.com/s.json"}), "options.outputSchema.$ref: \"https://example.com/s.json\""),
            (json!({"enum": []}), "options.outputSchema.enum must be a non-empty array"),
            (json!({"multipleOf": 0}), "options.outputSchema.multipleOf must be greater than 0"),
            (json!({"properties": {"a": {"$defs": {}}}}), "options.outputSchema.properties.a.$defs: definitions are read at the schema's root only"),
        ];
        for (schema, message) in cases {
            let e = read(schema.clone()).unwrap_err();
            assert!(
                e.message().starts_with(message),
                "{schema}: {}",
                e.message()
            );
        }
    }

    #[test]
    fn refs_resolve_to_the_root_and_to_definitions() {
        let s = read(json!({
            "definitions": {"leaf": {"type": "string"}},
            "type": "object",
            "properties": {"child": {"$ref": "#"}, "leaf": {"$ref": "#/definitions/leaf"}}
        }))
        .unwrap();
        let Node::Keywords(k) = &s.root else {
            panic!("keywords")
        };
        let refs: Vec<Option<Target>> = k
            .properties
            .iter()
            .map(|(_, n)| match n {
                Node::Keywords(k) => k.reference,
                Node::Bool(_) => None,
            })
            .collect();
        assert_eq!(refs, [Some(Target::Root), Some(Target::Def(0))]);
        assert!(matches!(s.target(Target::Def(0)), Node::Keywords(_)));
        assert!(read(json!(true)).is_ok());
    }
}
