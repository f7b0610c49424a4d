//! REST tools imported from a real public OpenAPI document (the Swagger Petstore, OpenAPI 3.0,
//! kept in `tests/data/openapi/petstore.yaml`), called against a local server on 127.0.0.1
//! that echoes what arrives.

use axum::extract::Request;
use axum::response::IntoResponse;
use axum::routing::any;
use axum::Router;
use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::rest::{openapi_specs, OpenApiOptions, RestError, RestTools};

const PETSTORE: &str = include_str!("data/openapi/petstore.yaml");

async fn echo(request: Request) -> axum::response::Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20).await.unwrap_or_default();
    axum::Json(json!({
        "method": parts.method.as_str(),
        "path": parts.uri.path(),
        "query": parts.uri.query(),
        "api_key": parts.headers.get("api_key").and_then(|v| v.to_str().ok()),
        "body": serde_json::from_slice::<Value>(&body).ok(),
    }))
    .into_response()
}

async fn petstore(options: OpenApiOptions) -> Executor {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, Router::new().route("/api/v3/{*rest}", any(echo))).await });
    let options = OpenApiOptions { base_url: Some(format!("http://{address}/api/v3")), ..options };
    let mut catalog = ToolCatalog::builder();
    for tool in RestTools::new().load_openapi(PETSTORE, &options).unwrap() {
        catalog = catalog.add_tool(tool);
    }
    Executor::new(catalog.build().unwrap())
}

async fn call(executor: &Executor, tool: &str, arguments: Value) -> Value {
    let record = executor.execute(ToolCallRequest::new(tool, "1", arguments.to_string())).await;
    assert_eq!(record.status, CallStatus::Success, "{tool}: {}", record.model_text());
    record.content.structured.unwrap()
}

#[tokio::test]
async fn every_operation_becomes_a_tool_named_by_its_operation_id() {
    let executor = petstore(OpenApiOptions::default()).await;
    let names: Vec<&str> = executor.catalog().names().collect();
    assert_eq!(
        names,
        [
            "addPet",
            "createUser",
            "createUsersWithListInput",
            "deleteOrder",
            "deletePet",
            "deleteUser",
            "findPetsByStatus",
            "findPetsByTags",
            "getInventory",
            "getOrderById",
            "getPetById",
            "getUserByName",
            "loginUser",
            "logoutUser",
            "placeOrder",
            "updatePet",
            "updatePetWithForm",
            "updateUser",
            "uploadFile"
        ]
    );
    let by_status = executor.catalog().definition("findPetsByStatus").unwrap();
    assert_eq!(
        by_status.description,
        "Finds Pets by status.\n\nMultiple status values can be provided with comma separated strings."
    );
    let status = &by_status.parameters[0];
    assert_eq!(status.enum_constraint.as_ref().unwrap().allowed_values, ["available", "pending", "sold"]);
    assert_eq!(status.default, Some(json!("available")));
    // The body's `$ref`s are resolved into the parameters: Pet's fields, its category's too.
    let add = executor.catalog().definition("addPet").unwrap();
    let required: Vec<&str> = add.parameters.iter().filter(|p| p.required).map(|p| p.name.as_str()).collect();
    assert_eq!(required, ["name", "photoUrls"]);
    assert_eq!(add.input_schema["properties"]["category"]["properties"]["name"]["type"], "string");
    assert!(!add.input_schema.to_string().contains("$ref"));
    assert!(!add.input_schema.to_string().contains("x-swagger"));
}

#[tokio::test]
async fn calls_map_path_query_header_and_body_as_the_document_says() {
    let executor = petstore(OpenApiOptions::default()).await;
    let echoed = call(&executor, "getPetById", json!({"petId": "42"})).await;
    assert_eq!((&echoed["method"], &echoed["path"]), (&json!("GET"), &json!("/api/v3/pet/42")));

    let echoed = call(&executor, "findPetsByTags", json!({"tags": ["a", "b c"]})).await;
    assert_eq!(echoed["query"], "tags=a&tags=b+c");

    let echoed = call(&executor, "deletePet", json!({"petId": 7, "api_key": "k-1"})).await;
    assert_eq!(
        (&echoed["method"], &echoed["path"], &echoed["api_key"]),
        (&json!("DELETE"), &json!("/api/v3/pet/7"), &json!("k-1"))
    );

    let pet = json!({"name": "Rex", "photoUrls": ["u"], "category": {"id": 1, "name": "Dogs"}, "status": "sold"});
    let echoed = call(&executor, "addPet", pet.clone()).await;
    assert_eq!((&echoed["method"], &echoed["body"]), (&json!("POST"), &pet));

    // A body that is a list is one parameter, `body`.
    let users = json!([{"username": "ada"}, {"username": "bo"}]);
    let echoed = call(&executor, "createUsersWithListInput", json!({"body": users})).await;
    assert_eq!(echoed["body"], users);

    // User's fields include `username`, which the path has too: the body is one parameter.
    let update = executor.catalog().definition("updateUser").unwrap();
    let names: Vec<&str> = update.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["username", "body"]);
    let echoed = call(&executor, "updateUser", json!({"username": "ada", "body": {"email": "a@example.com"}})).await;
    assert_eq!(
        (&echoed["method"], &echoed["path"], &echoed["body"]),
        (&json!("PUT"), &json!("/api/v3/user/ada"), &json!({"email": "a@example.com"}))
    );
}

#[tokio::test]
async fn operations_can_be_chosen_by_tag_or_id_and_named_with_a_prefix() {
    let by_tag =
        OpenApiOptions { tags: vec!["store".to_owned()], prefix: "petstore.".to_owned(), ..Default::default() };
    let executor = petstore(by_tag).await;
    let names: Vec<&str> = executor.catalog().names().collect();
    assert_eq!(
        names,
        ["petstore.deleteOrder", "petstore.getInventory", "petstore.getOrderById", "petstore.placeOrder"]
    );
    let by_id = OpenApiOptions { operations: vec!["loginUser".to_owned()], ..Default::default() };
    let specs = openapi_specs(PETSTORE, &by_id).unwrap();
    assert_eq!(specs.len(), 1);
    assert_eq!((specs[0].method.as_str(), specs[0].path.as_str()), ("GET", "/user/login"));
    assert_eq!(specs[0].query, ["username", "password"]);
}

#[test]
fn the_documents_server_is_the_base_url_unless_told_and_other_documents_are_refused() {
    let specs = openapi_specs(PETSTORE, &OpenApiOptions::default()).unwrap();
    assert_eq!(specs[0].base_url, "https://petstore3.swagger.io/api/v3");
    let swagger2 = "swagger: '2.0'\npaths: {}\n";
    assert_eq!(
        openapi_specs(swagger2, &OpenApiOptions::default()).unwrap_err().to_string(),
        "the REST tool registry is not valid OpenAPI: this is not an OpenAPI 3.0 or 3.1 document (`openapi: `)"
    );
    assert!(matches!(
        openapi_specs("{not json", &OpenApiOptions::default()),
        Err(RestError::Parse { format: "JSON", .. })
    ));
}

#[tokio::test]
async fn the_imported_tools_export_in_every_dialect() {
    use tool_core::providers::export::export;
    let executor = petstore(OpenApiOptions::default()).await;
    for &dialect in tool_tests::DIALECTS {
        match export(dialect, executor.catalog().definitions()) {
            Ok(exported) => assert_eq!(exported.tools.len(), 19, "{dialect:?}"),
            // Anthropic's strict mode bounds the optional parameters of a whole request.
            Err(error) => assert_eq!(
                (dialect, error.to_string()),
                (
                    tool_core::providers::Dialect::Anthropic { strict: true },
                    "the tools cannot be exported: Anthropic (strict) takes at most 24 optional parameters per request; these tools have 32".to_owned()
                )
            ),
        }
    }
}

/// An OpenAPI document whose `n` schemas each reference the next twice (2^n leaves once
/// inlined), with one operation on `/x`.
fn ref_bomb(n: usize) -> String {
    ref_bomb_on(n, &["/x"])
}

/// The same schemas, with one `POST` operation on each of `paths` taking them as its body.
fn ref_bomb_on(n: usize, paths: &[&str]) -> String {
    let mut schemas = serde_json::Map::new();
    for i in 0..n {
        let next = json!({"$ref": format!("#/components/schemas/S{}", i + 1)});
        let schema = match i + 1 == n {
            true => json!({"type": "string"}),
            false => json!({"type": "object", "properties": {"a": next, "b": next}}),
        };
        schemas.insert(format!("S{i}"), schema);
    }
    json!({
        "openapi": "3.0.3",
        "info": {"title": "bomb", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/api"}],
        "paths": paths.iter().map(|path| {
            let operation = json!({"post": {
                "operationId": &path[1..],
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}
            }});
            ((*path).to_owned(), operation)
        }).collect::<serde_json::Map<_, _>>(),
        "components": {"schemas": schemas}
    })
    .to_string()
}

#[test]
fn a_ref_bomb_is_refused_naming_the_budget() {
    let refused = "the REST tool `x` is invalid: the parameters and body of `POST /x` expand to more than 100000 \
                   schema nodes once `$ref`s are inlined (at `#/components/schemas/S0`); raise \
                   `OpenApiOptions::max_schema_nodes` to import it";
    // 25 schemas of 2.5 KB: tens of millions of nodes if inlined whole.
    let error = openapi_specs(&ref_bomb(25), &OpenApiOptions::default()).unwrap_err();
    assert_eq!(error.to_string(), refused);
    // A smaller one fits, and the budget is the host's to change.
    let specs = openapi_specs(&ref_bomb(8), &OpenApiOptions::default()).unwrap();
    let leaves = specs[0].parameters.to_string().matches("\"string\"").count();
    assert_eq!(leaves, 1 << 7);
    let tight = OpenApiOptions { max_schema_nodes: 500, ..OpenApiOptions::default() };
    assert_eq!(openapi_specs(&ref_bomb(8), &tight).unwrap_err().to_string(), refused.replace("100000", "500"));
}

#[tokio::test]
async fn an_operations_oauth_security_becomes_the_tools_scopes() {
    let executor = petstore(OpenApiOptions::default()).await;
    let scopes = |tool: &str| executor.catalog().definition(tool).unwrap().scopes.clone();
    assert_eq!(scopes("addPet"), ["write:pets", "read:pets"]);
    // `api_key` or `petstore_auth`: the first alternative that names OAuth scopes is taken,
    // so the tool is never open to a caller the document would have asked for a scope.
    assert_eq!(scopes("getPetById"), ["write:pets", "read:pets"]);
    // An API key is no OAuth scope; the users' operations name no security at all.
    assert!(scopes("getInventory").is_empty());
    assert!(scopes("createUser").is_empty());
}

#[test]
fn an_explicitly_public_operation_or_an_api_key_needs_no_scope() {
    let document = r#"{
        "openapi": "3.1.0",
        "servers": [{"url": "https://api.example.com"}],
        "security": [{"oidc": ["notes:read"]}],
        "components": {"securitySchemes": {
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://id.example.com/.well-known/openid-configuration"},
            "key": {"type": "apiKey", "name": "k", "in": "header"}
        }},
        "paths": {
            "/notes": {
                "get": {"operationId": "listNotes"},
                "post": {"operationId": "addNote", "security": [{"oidc": ["notes:write", "notes:write"]}]}
            },
            "/health": {"get": {"operationId": "health", "security": []}},
            "/keyed": {"get": {"operationId": "keyed", "security": [{"key": ["not-a-scope"]}]}}
        }
    }"#;
    let specs = openapi_specs(document, &OpenApiOptions::default()).unwrap();
    let scopes: Vec<(&str, Vec<String>)> = specs.iter().map(|s| (s.name.as_str(), s.scopes.clone())).collect();
    assert_eq!(
        scopes,
        [
            ("listNotes", vec!["notes:read".to_owned()]),
            ("addNote", vec!["notes:write".to_owned()]),
            ("health", vec![]),
            ("keyed", vec![]),
        ]
    );
}
