# The program's own sitecustomize: it must still run under Strata.
import os
os.environ["USER_SITECUSTOMIZE_RAN"] = "1"
