//! How the fake answers a request: the gate (hostile behaviour,
//! authentication, a failure it was told to give), then an object or a
//! page of a list, shaped by the definitions.

use std::sync::{Arc, Mutex};

use axum::extract::State as Extract;
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use ccfn_testkit::__private::{lock, read, record, Book};
use ccfn_testkit::Request;
use serde_json::{json, Value};

use super::definitions::{self, Operation};
use super::hostile::{self, Hostile};
use super::select::{now, select, snake_case};

/// What the fake serves, and to whom.
#[derive(Default)]
pub(super) struct State {
    /// `http://127.0.0.1:{port}`.
    pub(super) origin: String,
    /// Each list's path, the key of its items, and its items.
    pub(super) lists: Vec<(String, &'static str, Vec<Value>)>,
    /// Each object's path, and the object.
    pub(super) objects: Vec<(String, Value)>,
    pub(super) username: String,
    pub(super) password: String,
    pub(super) hostile: Option<Hostile>,
}

/// The fake's requests and what it serves, shared with its server.
pub(super) struct Shared {
    pub(super) book: Mutex<Book>,
    pub(super) state: Mutex<State>,
}

/// The platform's error body.
pub(super) fn error_body(status: u16, code: u32, message: &str) -> Value {
    json!({
        "code": code,
        "message": message,
        "more_info": format!("https://www.twilio.com/docs/errors/{code}"),
        "status": status,
    })
}

/// The platform's error answer.
fn error(status: StatusCode, code: u32, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        error_body(status.as_u16(), code, message).to_string(),
    )
        .into_response()
}

/// Records the request and answers it; notes the status answered.
pub(super) async fn handle(
    Extract(shared): Extract<Arc<Shared>>,
    request: axum::extract::Request,
) -> Response {
    let (parts, body) = match read(request, 1024 * 1024).await {
        Ok(read) => read,
        Err(too_large) => return too_large,
    };
    let request = record(&parts, body);
    let (index, delay) = {
        let mut book = lock(&shared.book);
        (book.record(request.clone()), book.delay())
    };
    let response = match gate(&shared, &request, index) {
        Some(response) => response,
        None => {
            tokio::time::sleep(delay).await;
            let state = lock(&shared.state);
            answer(&state, &request)
        }
    };
    lock(&shared.book).answered(index, response.status().as_u16());
    response
}

/// The answer given before the fake looks at what it serves, if any: the
/// platform's 405 to a write (the fake serves reads), a hostile one, the
/// platform's 401 to a request without the fake's credentials, and a
/// failure it was told to give.
pub(super) fn gate(shared: &Shared, request: &Request, received: usize) -> Option<Response> {
    // A write is refused as the platform refuses a method a resource does
    // not have (405, code 20004).
    if request.method() != Method::GET.as_str() {
        return Some(error(
            StatusCode::METHOD_NOT_ALLOWED,
            20004,
            "Method not allowed",
        ));
    }
    let state = lock(&shared.state);
    let authenticated = request.username().as_deref() == Some(state.username.as_str())
        && request.password().as_deref() == Some(state.password.as_str());
    if let Some(hostile) = &state.hostile {
        let known = hostile::Known {
            origin: &state.origin,
            username: &state.username,
            password: &state.password,
            received,
        };
        if let Some((response, _)) =
            hostile.answer(&known, request.path(), request.query_pairs(), authenticated)
        {
            return Some(response);
        }
    }
    if !authenticated {
        return Some(error(StatusCode::UNAUTHORIZED, 20003, "Authenticate"));
    }
    drop(state);
    let failure = lock(&shared.book).failure()?;
    Some(failure.into_response())
}

/// The answer to an authenticated read: the object at its path, or a
/// page of the list, or the platform's 404.
pub(super) fn answer(state: &State, request: &Request) -> Response {
    let path = request.path();
    let operation = definitions::find(path).map(|(operation, _)| operation);
    if let Some((_, object)) = state.objects.iter().find(|(p, _)| p == path) {
        // One item, fetched: in the shape of the operation's answer.
        let object = match operation {
            Some(operation) if operation.list_items().is_none() => {
                definitions::shape(object, &operation.response, None)
            }
            _ => object.clone(),
        };
        return axum::Json(object).into_response();
    }
    let empty = Vec::new();
    let (key, items): (String, &Vec<Value>) = match state.lists.iter().find(|(p, _, _)| p == path) {
        Some((_, key, items)) => ((*key).to_owned(), items),
        // A list under an item the fake has (a call's recordings, a
        // flow's executions) is empty, as on the platform, not missing.
        None => match sublist(state, path) {
            Some(key) => (key, &empty),
            None => {
                let message = format!("The requested resource {path} was not found");
                return error(StatusCode::NOT_FOUND, 20404, &message);
            }
        },
    };
    match page(state, request, operation, &key, items) {
        Ok(body) => axum::Json(body).into_response(),
        Err(message) => error(StatusCode::BAD_REQUEST, 20001, &message),
    }
}

/// The page of `items` the request asks for (`PageSize`, `Page` and the
/// operation's filters), in the shape of the product's pages; or the
/// message of the platform's 400.
fn page(
    state: &State,
    request: &Request,
    operation: Option<&Operation>,
    key: &str,
    items: &[Value],
) -> Result<Value, String> {
    let query = request.query_pairs();
    let number = |name: &str, default: usize| {
        request
            .query(name)
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(default)
    };
    let size = number("PageSize", 50).clamp(1, 1000);
    let page = number("Page", 0);
    let list =
        operation.and_then(|operation| operation.list_items().map(|(_, items)| (operation, items)));
    let kept: Vec<&Value> = match list {
        Some((operation, _)) => select(&operation.id, items, query, now())?,
        None => items.iter().collect(),
    };
    let start = (page * size).min(kept.len());
    let end = (start + size).min(kept.len());
    // Items in a list: in the shape of the list's item schema, with the
    // fields the platform gives only to a fetched item null.
    let items: Vec<Value> = kept[start..end]
        .iter()
        .map(|item| match list {
            Some((operation, schema)) => definitions::shape(item, schema, Some(&operation.id)),
            None => (*item).clone(),
        })
        .collect();
    let links = Links {
        path: request.path(),
        filters: form_urlencoded::Serializer::new(String::new())
            .extend_pairs(
                query
                    .iter()
                    .filter(|(n, _)| !matches!(n.as_str(), "PageSize" | "Page" | "PageToken")),
            )
            .finish(),
        size,
    };
    let more = end < kept.len();
    Ok(if request.path().starts_with("/2010-04-01/") {
        json!({
            key: items,
            "page": page,
            "page_size": size,
            "start": start,
            "end": end.saturating_sub(1).max(start),
            "uri": links.uri(page),
            "first_page_uri": links.uri(0),
            "previous_page_uri": if page > 0 { Value::from(links.uri(page - 1)) } else { Value::Null },
            "next_page_uri": if more { Value::from(links.uri(page + 1)) } else { Value::Null },
        })
    } else {
        let url = |page: usize| format!("{}{}", state.origin, links.uri(page));
        json!({
            key: items,
            "meta": {
                "page": page,
                "page_size": size,
                "first_page_url": url(0),
                "previous_page_url": if page > 0 { Value::from(url(page - 1)) } else { Value::Null },
                "url": url(page),
                "next_page_url": if more { Value::from(url(page + 1)) } else { Value::Null },
                "key": key,
            },
        })
    })
}

/// The links of a list's pages: its path, the request's filters, the
/// page size.
struct Links<'a> {
    path: &'a str,
    filters: String,
    size: usize,
}

impl Links<'_> {
    /// Page `page`'s path and query.
    fn uri(&self, page: usize) -> String {
        let and = if self.filters.is_empty() {
            String::new()
        } else {
            format!("&{}", self.filters)
        };
        format!("{}?PageSize={}&Page={page}{and}", self.path, self.size)
    }
}

/// The key of `path`'s items when it is a list under an item the fake
/// serves (`.../Calls/CA1/Recordings.json` under `.../Calls/CA1.json`).
fn sublist(state: &State, path: &str) -> Option<String> {
    let (parent, last) = path.rsplit_once('/')?;
    let (parent, last) = match last.strip_suffix(".json") {
        Some(last) => (format!("{parent}.json"), last),
        None => (parent.to_owned(), last),
    };
    let key = match definitions::find(path).and_then(|(operation, _)| operation.list_items()) {
        Some((key, _)) => key.to_owned(),
        None => snake_case(last),
    };
    state
        .objects
        .iter()
        .any(|(p, _)| *p == parent)
        .then_some(key)
}
