//! The strict policy: per parameter, per tool and per catalog, every repair and conversion
//! becomes an error that names what lenient extraction would have done.

use tool_core::prelude::*;
use tool_core::{CatalogBuilder, ExtractionPolicy};

/// Page through results.
#[tool]
fn page(
    /// Lenient: text is converted.
    size: u32,
    /// Strict: must be an integer as sent.
    #[param(strict)]
    offset: u32,
) -> String {
    format!("{size} {offset}")
}

/// Transfer money: no guessing at all.
#[tool(strict)]
fn transfer(cents: u64, to: String) -> String {
    format!("{cents} to {to}")
}

fn errors<T: std::fmt::Debug>(extraction: tool_core::Extraction<'_, T>) -> Vec<(String, String, String)> {
    extraction.value.unwrap_err().errors.into_iter().map(|e| (e.pointer, e.rule, e.detail)).collect()
}

#[test]
fn a_strict_parameter_refuses_conversions_the_others_still_get() {
    let e = <page as DeclaredTool>::extract(r#"{"size": "10", "offset": "20"}"#);
    assert_eq!(
        e.warnings.iter().map(|w| (w.pointer(), w.rule())).collect::<Vec<_>>(),
        vec![("/size", "string_to_integer")]
    );
    assert_eq!(
        errors(e),
        vec![(
            "/offset".into(),
            "string_to_integer".into(),
            "refused by the strict policy; lenient extraction would have converted to 20".into()
        )]
    );
    assert_eq!(<page as DeclaredTool>::extract(r#"{"size": 10, "offset": 20}"#).value.unwrap(), (10, 20));
}

#[test]
fn a_strict_tool_refuses_repairs_of_the_text_and_conversions() {
    let fenced = errors(<transfer as DeclaredTool>::extract("```json\n{\"cents\": 5, \"to\": \"ann\"}\n```"));
    assert_eq!((fenced[0].0.as_str(), fenced[0].1.as_str()), ("", "code_fence_removed"));
    assert!(fenced[0].2.starts_with("refused by the strict policy; lenient extraction would have "), "{}", fenced[0].2);
    let converted = errors(<transfer as DeclaredTool>::extract(r#"{"cents": 5.0, "to": 7}"#));
    assert_eq!(
        converted.iter().map(|(p, r, _)| (p.as_str(), r.as_str())).collect::<Vec<_>>(),
        vec![("/cents", "float_to_integer"), ("/to", "literal_to_string")]
    );
    assert_eq!(
        <transfer as DeclaredTool>::extract(r#"{"cents": 5, "to": "ann"}"#).value.unwrap(),
        (5, "ann".to_owned())
    );
}

#[test]
fn the_policy_can_be_chosen_per_extraction() {
    let e = <page as DeclaredTool>::extract_with(r#"{"size": "10", "offset": 20}"#, ExtractionPolicy::STRICT);
    assert_eq!(errors(e)[0].1, "string_to_integer");
}

#[tokio::test]
async fn a_strict_catalog_makes_every_tool_strict_in_the_executor() {
    let catalog = CatalogBuilder::new().add_declared::<page>().strict(true).build().unwrap();
    assert_eq!(catalog.policy(), ExtractionPolicy::STRICT);
    let record =
        Executor::new(catalog).execute(ToolCallRequest::new("page", "c1", r#"{"size": "10", "offset": 20}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.content.text,
        "The arguments for `page` were not accepted:\n- `size`: expected an integer; got \"10\".\nSend the corrected arguments to `page` again."
    );
    let lenient = Executor::new(CatalogBuilder::new().add_declared::<page>().build().unwrap());
    let record = lenient.execute(ToolCallRequest::new("page", "c2", r#"{"size": "10", "offset": 20}"#)).await;
    assert_eq!(record.content.text, "10 20");
}

/// When to remind.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Remind {
    Never,
    After { minutes: u32 },
}

/// How to pay.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "method", rename_all = "snake_case")]
enum Payment {
    Cash,
    Card { installments: u8 },
}

#[test]
fn under_the_strict_policy_variant_names_and_values_inside_variants_are_refused() {
    let refused = |raw| {
        let e = <remind_and_pay as DeclaredTool>::extract_with(raw, ExtractionPolicy::STRICT);
        e.value.unwrap_err().errors.into_iter().map(|e| (e.pointer, e.rule)).collect::<Vec<_>>()
    };
    let at = |pointer: &str, rule: &str| (pointer.to_owned(), rule.to_owned());
    assert_eq!(
        refused(r#"{"when": {"AFTER": {"minutes": 5}}, "payment": {"method": "Card", "installments": 2}}"#),
        vec![at("/when", "enum_case_normalized"), at("/payment/method", "enum_case_normalized")]
    );
    assert_eq!(
        refused(r#"{"when": {"after": {"minutes": "5"}}, "payment": {"method": "card", "installments": 2.0}}"#),
        vec![
            at("/when/after/minutes", "string_to_integer"),
            at("/payment/installments", "float_to_integer"),
            // serde reads an internally tagged enum's fields from a buffer, so its error can only
            // name the enum.
            at("/payment", "invalid_type"),
        ]
    );
}

/// Set a reminder and pay for it.
#[tool]
fn remind_and_pay(when: Remind, payment: Payment) -> String {
    format!("{when:?} {payment:?}")
}
