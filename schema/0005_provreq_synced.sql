-- gpuq schema, version 5: the status of a ProvisioningRequest the engine has
-- already turned into its check's state, so that each scheduling step reads
-- only the requests whose provider reported something new.
ALTER TABLE provisioning_requests ADD COLUMN synced_status TEXT;
