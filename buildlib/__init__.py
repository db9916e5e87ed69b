"""Build machinery behind build.py: tangle .pmd sources into a package, weave them into posts, check both."""
