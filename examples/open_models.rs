//! A host serving a small open model that writes its tool calls as Python: the system message
//! that teaches the form (Llama 3.2's own words and tool list), two answers a 0.8B model wrote on
//! BFCL's questions read by the declared types and executed, and the results written back as
//! Llama's `ipython` turns.
//!
//! ```text
//! cargo run -p tool-examples --bin open_models
//! ```
//!
//! The two answers are AIREV-Agent-0.8B's, from BFCL's recorded results (`simple_python_17` and
//! `simple_python_65`), wrapped in the special tokens a Llama 3.2 host decoding with them kept
//! receives: JSON's `true` inside Python, and a year written as a string.

use tool_core::open_models::{CallForm, OpenModelParser, OpenModelPrompt, PromptStyle};
use tool_core::prelude::*;

/// Find the prime factors of a number.
#[tool]
fn get_prime_factors(
    /// The number to factor.
    number: u64,
    /// Whether to give the factors as text (`2^1 x 3^2 x 5^2`) rather than a list.
    formatted: bool,
) -> String {
    let mut factors = Vec::new();
    let (mut rest, mut divisor) = (number, 2);
    while rest > 1 && divisor <= rest {
        let mut power = 0;
        while rest % divisor == 0 {
            rest /= divisor;
            power += 1;
        }
        if power > 0 {
            factors.push((divisor, power));
        }
        divisor += 1;
    }
    if formatted {
        factors.iter().map(|(p, k)| format!("{p}^{k}")).collect::<Vec<_>>().join(" x ")
    } else {
        format!("{:?}", factors.iter().flat_map(|&(p, k)| std::iter::repeat_n(p, k)).collect::<Vec<u64>>())
    }
}

/// Calculate the population density of a country in a year.
#[tool]
fn calculate_density(
    /// The country.
    country: String,
    /// The year.
    year: u32,
    /// The population, in millions.
    population: f64,
    /// The land area, in millions of square kilometres.
    land_area: f64,
) -> String {
    format!("{country} in {year}: {:.1} people per square kilometre", population / land_area)
}

const ANSWERS: &[&str] = &[
    "<|python_tag|>[get_prime_factors(number=450, formatted=true)]<|eot_id|>",
    "<|python_tag|>[calculate_density(country=\"Brazil\", year=\"2022\", population=213, land_area=8.5)]<|eot_id|>",
];

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let catalog =
        ToolCatalog::builder().add_declared::<get_prime_factors>().add_declared::<calculate_density>().build()?;
    let prompt = OpenModelPrompt::new(&catalog, PromptStyle::LlamaPython)?.today("26 Nov 2026").build();
    println!("== The system message ==\n{prompt}");

    let executor = Executor::new(catalog);
    let parser = OpenModelParser::new(executor.catalog()).form(CallForm::Python);
    for answer in ANSWERS {
        println!("\n== The model's answer ==\n{answer}");
        let turn = parser.parse_and_execute(&executor, answer).await;
        for record in &turn.records {
            let request = &record.request;
            println!("call:    {} {}", request.tool_name, request.raw_arguments);
            for warning in record.warnings() {
                println!("warning: {warning}");
            }
            println!("status:  {:?}: {}", record.status, record.model_text());
        }
        for warning in &turn.warnings {
            println!("warning about the answer: {warning}");
        }
        println!("== Back to the model ({:?}) ==\n{}", turn.result_format, turn.results);
    }
    Ok(())
}
