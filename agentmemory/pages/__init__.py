"""Pages for end users: "what do you remember about me", under the host's own login."""
