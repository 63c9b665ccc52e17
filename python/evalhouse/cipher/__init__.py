"""CIPHER: reasoning over privacy-redacted hybrid records with executable SQL supervision."""
