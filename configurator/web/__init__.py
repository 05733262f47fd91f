"""The configurator's pages: views, forms and view models (the template tags stay in
configurator/templatetags, where Django finds an app's tag libraries)."""
