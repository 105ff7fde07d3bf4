# A stand-in for torch with only the piece of Dynamo that Strata's Python shim changes.
