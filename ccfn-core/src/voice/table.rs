//! The macros the vocabulary (`elements.rs`) is written in: one
//! `element!` per element, naming its tag, its attributes with the kind of
//! value each takes, and the children it may hold.
//!
//! Attribute kinds: `text` (`impl Into<String>`), `u32`, `bool`,
//! `SpeechTimeout` (`impl Into<SpeechTimeout>`), an enum with `as_str`
//! (`Method`, `Trim`, ...), or `[E]`: a space-separated list of `E`s
//! (`impl Values<E>`). Only `text` is kept as a `String`: numbers are kept
//! as their digits, and the values of a fixed set (booleans, enums, a
//! list of one value) as the `&'static str` they are written as.
//!
//! A child is `method = "helperName" -> Type`: with `(param)` when the
//! helper requires its text (`impl Into<String>`, none when empty), or
//! `(param: T)` for text given as `impl Into<T>` where `String: From<T>`;
//! with `| method_param(param)` when the helper's text is optional: then
//! `method()` adds it without text and `method_param(param)` with it (the
//! rule of the module's docs, under "Optional text").
//!
//! Under `cfg(test)`, each element also answers to the helper library's
//! names (`set_by_name`, `add_by_name`), so that the differential test can
//! replay the helper's documents through these very setters; that code
//! names the test's `hit` and `Build`, which the calling file imports
//! under `cfg(test)`. Everything else is named by its full path.

/// Declares an element: its builder type, setters and children.
macro_rules! element {
    (
        $(#[$doc:meta])*
        pub struct $ty:ident = $tag:literal;
        attributes {
            $( $(#[$adoc:meta])* $afn:ident = $aname:literal : $kind:tt; )*
        }
        children {
            $( $cfn:ident = $method:literal -> $class:ident $( ( $param:ident $(: $pty:ty)? ) )? $( | $tfn:ident ( $tparam:ident ) )?; )*
        }
    ) => {
        $(#[$doc])*
        // No `Clone`: a copy of an element could never be added to a
        // document.
        #[derive(Debug, PartialEq, Eq, ::ref_cast::RefCastCustom)]
        #[repr(transparent)]
        pub struct $ty($crate::voice::tree::El);

        impl $ty {
            #[::ref_cast::ref_cast_custom]
            fn from_el(el: &mut $crate::voice::tree::El) -> &mut Self;
        }

        impl $crate::voice::tree::Element for $ty {
            const TAG: &'static str = $tag;

            fn cast(el: &mut $crate::voice::tree::El) -> &mut Self {
                Self::from_el(el)
            }
        }

        impl $crate::voice::tree::Parent for $ty {
            fn el_mut(&mut self) -> &mut $crate::voice::tree::El {
                &mut self.0
            }
        }

        impl $ty {
            /// The room the first attribute set makes in the list: one
            /// per attribute with a setter, up to a few.
            const SLOTS: usize = <[&str]>::len(&[$($aname),*]);

            $( attribute!($(#[$adoc])* $afn $aname $kind); )*

            /// Sets attribute `name` to `value`, for an attribute without a
            /// setter of its own (one the platform added later); an
            /// attribute already set is replaced in place.
            ///
            /// # Panics
            ///
            /// If `name` is not an XML name.
            pub fn attr(
                &mut self,
                name: impl Into<std::borrow::Cow<'static, str>>,
                value: impl Into<String>,
            ) -> &mut Self {
                let name = name.into();
                $crate::voice::tree::check_name(&name);
                self.0.set(name, Into::<String>::into(value), Self::SLOTS);
                self
            }

            /// Appends an element without a builder of its own (one the
            /// platform added later), tagged `tag`.
            ///
            /// # Panics
            ///
            /// If `tag` is not an XML name.
            pub fn child(
                &mut self,
                tag: impl Into<std::borrow::Cow<'static, str>>,
            ) -> &mut $crate::voice::tree::GenericElement {
                let tag = tag.into();
                $crate::voice::tree::check_name(&tag);
                $crate::voice::tree::GenericElement::from_el(
                    self.0.push_el($crate::voice::tree::El::new(tag, String::new())),
                )
            }

            /// Appends text, after what the element already holds.
            pub fn add_text(&mut self, text: impl Into<String>) -> &mut Self {
                self.0.push_text(text.into());
                self
            }
        }

        children! {
            $ty {
                $( $cfn = $method -> $class $( ( $param $(: $pty)? ) )? $( | $tfn ( $tparam ) )?; )*
            }
        }

        #[cfg(test)]
        impl $ty {
            pub(super) const ATTRIBUTES: &'static [&'static str] = &[$($aname),*];

            #[allow(unused_variables)]
            fn set_by_name(&mut self, name: &str, value: &::serde_json::Value) -> bool {
                match name {
                    $(
                        $aname => {
                            hit(stringify!($ty), $aname);
                            self.$afn(attribute!(@parse $kind value));
                            true
                        }
                    )*
                    _ => false,
                }
            }
        }

        #[cfg(test)]
        impl Build for $ty {
            fn class(&self) -> &'static str {
                stringify!($ty)
            }

            fn set_named(&mut self, name: &str, value: &::serde_json::Value) -> bool {
                self.set_by_name(name, value)
            }

            fn add_named(
                &mut self,
                method: &str,
                text: Option<&str>,
            ) -> Option<&mut dyn Build> {
                self.add_by_name(method, text)
            }

            fn set_other(&mut self, name: String, value: String) {
                self.attr(name, value);
            }

            fn add_other(&mut self, tag: String) -> &mut dyn Build {
                self.child(tag)
            }

            fn add_words(&mut self, text: &str) {
                self.add_text(text);
            }
        }
    };
}

/// The methods adding `$ty`'s children (the response's verbs, or an
/// element's nouns).
macro_rules! children {
    (
        $ty:ident {
            $( $cfn:ident = $method:literal -> $class:ident $( ( $param:ident $(: $pty:ty)? ) )? $( | $tfn:ident ( $tparam:ident ) )?; )*
        }
    ) => {
        impl $ty {
            $(
                children!(@method $cfn $class $( $param $($pty)? )?);
                $( children!(@optional $cfn $tfn $class $tparam); )?
            )*
        }

        #[cfg(test)]
        impl $ty {
            /// The helper's names of the methods adding children.
            pub(super) const CHILDREN: &'static [&'static str] = &[$($method),*];
            /// The builders' own names of those methods: two for a
            /// child whose text is optional.
            pub(super) const METHODS: &'static [&'static str] =
                &[$( stringify!($cfn) $(, stringify!($tfn))? ),*];
            /// The helper's names of the methods whose text is optional.
            pub(super) const OPTIONAL: &'static [&'static str] =
                &[$( $( children!(@name $method $tfn), )? )*];

            #[allow(unused_variables)]
            fn add_by_name(
                &mut self,
                method: &str,
                text: Option<&str>,
            ) -> Option<&mut dyn Build> {
                $( children!(@try $ty self method text $cfn $method $( $param )? $( | $tfn )?); )*
                None
            }
        }
    };
    (@name $method:literal $tfn:ident) => {
        $method
    };
    (@method $cfn:ident $class:ident) => {
        #[doc = concat!("Appends [`", stringify!($class), "`].")]
        pub fn $cfn(&mut self) -> &mut $class {
            $crate::voice::tree::Parent::el_mut(self).push(String::new())
        }
    };
    (@optional $cfn:ident $tfn:ident $class:ident $tparam:ident) => {
        #[doc = concat!(
            "Appends [`", stringify!($class), "`] with `", stringify!($tparam),
            "` as its text (none when empty); [`", stringify!($cfn), "`](Self::",
            stringify!($cfn), ") appends it without text (the rule and an example ",
            "are under \"Optional text\" in the module's docs).",
        )]
        pub fn $tfn(&mut self, $tparam: impl Into<String>) -> &mut $class {
            $crate::voice::tree::Parent::el_mut(self).push($tparam.into())
        }
    };
    (@method $cfn:ident $class:ident $param:ident) => {
        #[doc = concat!(
            "Appends [`", stringify!($class), "`] with `", stringify!($param),
            "` as its text (none when empty).",
        )]
        pub fn $cfn(&mut self, $param: impl Into<String>) -> &mut $class {
            $crate::voice::tree::Parent::el_mut(self).push($param.into())
        }
    };
    (@method $cfn:ident $class:ident $param:ident $pty:ty) => {
        #[doc = concat!(
            "Appends [`", stringify!($class), "`] with `", stringify!($param),
            "` as its text (a [`", stringify!($pty), "`]).",
        )]
        pub fn $cfn(&mut self, $param: impl Into<$pty>) -> &mut $class {
            $crate::voice::tree::Parent::el_mut(self).push(String::from($param.into()))
        }
    };
    (@try $ty:ident $self:ident $m:ident $t:ident $cfn:ident $method:literal) => {
        if $m == $method && $t.is_none() {
            hit(stringify!($ty), $method);
            hit(stringify!($ty), concat!("fn ", stringify!($cfn)));
            return Some($self.$cfn());
        }
    };
    (@try $ty:ident $self:ident $m:ident $t:ident $cfn:ident $method:literal $param:ident) => {
        if $m == $method
            && let Some(text) = $t
        {
            hit(stringify!($ty), $method);
            hit(stringify!($ty), concat!("fn ", stringify!($cfn)));
            return Some($self.$cfn(text));
        }
    };
    (@try $ty:ident $self:ident $m:ident $t:ident $cfn:ident $method:literal | $tfn:ident) => {
        if $m == $method {
            hit(stringify!($ty), $method);
            return Some(match $t {
                None => {
                    hit(stringify!($ty), concat!("fn ", stringify!($cfn)));
                    $self.$cfn()
                }
                Some(text) => {
                    hit(stringify!($ty), concat!("fn ", stringify!($tfn)));
                    $self.$tfn(text)
                }
            });
        }
    };
}

/// One attribute setter (or, with `@parse`, the helper's JSON value read as
/// the setter's argument).
macro_rules! attribute {
    (@parse text $v:ident) => {
        $v.as_str().expect("a string").to_owned()
    };
    (@parse u32 $v:ident) => {
        u32::try_from($v.as_u64().expect("a whole number")).expect("a u32")
    };
    (@parse bool $v:ident) => {
        $v.as_bool().expect("a boolean")
    };
    (@parse [$e:ident] $v:ident) => {
        $v.as_array()
            .expect("an array")
            .iter()
            .map(|v| attribute!(@parse $e v))
            .collect::<Vec<$e>>()
    };
    (@parse $e:ident $v:ident) => {
        $v.as_str()
            .expect("a string")
            .parse::<$e>()
            .expect("a value the type knows")
    };
    ($(#[$doc:meta])* $fn:ident $name:literal text) => {
        $(#[$doc])*
        pub fn $fn(&mut self, value: impl Into<String>) -> &mut Self {
            self.0.set($name, Into::<String>::into(value), Self::SLOTS);
            self
        }
    };
    ($(#[$doc:meta])* $fn:ident $name:literal u32) => {
        $(#[$doc])*
        pub fn $fn(&mut self, value: u32) -> &mut Self {
            self.0.set($name, value, Self::SLOTS);
            self
        }
    };
    ($(#[$doc:meta])* $fn:ident $name:literal bool) => {
        $(#[$doc])*
        pub fn $fn(&mut self, value: bool) -> &mut Self {
            self.0.set($name, value, Self::SLOTS);
            self
        }
    };
    ($(#[$doc:meta])* $fn:ident $name:literal SpeechTimeout) => {
        $(#[$doc])*
        pub fn $fn(&mut self, value: impl Into<$crate::voice::values::SpeechTimeout>) -> &mut Self {
            let value = match value.into() {
                $crate::voice::values::SpeechTimeout::Auto => {
                    $crate::voice::tree::Value::Plain("auto")
                }
                $crate::voice::values::SpeechTimeout::Seconds(seconds) => {
                    $crate::voice::tree::Value::from(seconds)
                }
            };
            self.0.set($name, value, Self::SLOTS);
            self
        }
    };
    ($(#[$doc:meta])* $fn:ident $name:literal [$e:ident]) => {
        $(#[$doc])*
        pub fn $fn(&mut self, values: impl $crate::voice::values::Values<$e>) -> &mut Self {
            self.0.set(
                $name,
                $crate::voice::tree::Value::Text(values.joined()),
                Self::SLOTS,
            );
            self
        }
    };
    ($(#[$doc:meta])* $fn:ident $name:literal $e:ident) => {
        $(#[$doc])*
        pub fn $fn(&mut self, value: $e) -> &mut Self {
            self.0.set($name, $crate::voice::tree::Value::Plain(value.as_str()), Self::SLOTS);
            self
        }
    };
}
