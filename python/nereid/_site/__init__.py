"""nereid/_site: a folder for PYTHONPATH whose sitecustomize installs nereid.dropin in
every Python process that starts with NEREID_TRITON=1 (nereid.dropin puts it there)."""
