//! The macro knows the platform's parameters by name, to tell a bare
//! custom parameter (`required = [CustomerId]`) from one of them: its list
//! must be exactly `ccfn_core::params::ALL`.

#[test]
fn the_macro_knows_exactly_the_platform_parameters() {
    let source = include_str!("../../../ccfn-macros/src/validate.rs");
    let start = source
        .find("const PLATFORM_PARAMS")
        .expect("the macro's list of platform parameters");
    let list = &source[start..];
    let list = &list[list.find("= [").expect("a list") + 3..list.find("];").expect("its end")];
    let names: Vec<&str> = list
        .split(',')
        .map(|name| name.trim().trim_matches('"'))
        .filter(|name| !name.is_empty())
        .collect();
    assert_eq!(names, ccfn_core::params::ALL);
}
