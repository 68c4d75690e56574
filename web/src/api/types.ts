/** JSON shapes of the Strata REST answers the app reads (the ArcGIS dialect, see shared/SPEC.md). */

export interface ErrorEnvelope {
  error: { code: number; message: string; details?: string[] };
}

export interface TokenAnswer {
  token: string;
  expires: number;
}

export interface Self {
  username: string;
  fullName?: string;
  role: string;
  privileges?: string[];
}

export interface Item {
  id: string;
  owner: string;
  title: string;
  type: string;
  url: string | null;
  name?: string | null;
  access: string;
  tags?: string[];
  description?: string;
  snippet?: string;
  /** The owner's folder holding the item; null in the root. */
  ownerFolder?: string | null;
  /** A client's own properties; a job's output has jobUrl, jobId and task (the job that made it). */
  properties?: Record<string, unknown> | null;
  created?: number;
  modified?: number;
}

export type Access = "private" | "org" | "public";

export interface Folder {
  id: string;
  title: string;
  username: string;
  created?: number;
}

/** `content/users/<u>[/<folderId>]`: the items there and the owner's folders. */
export interface UserContent {
  items: Item[];
  folders: Folder[];
  currentFolder: { id: string; title: string } | null;
}

/** What an upload or publish sent with an uploadId is doing (Strata's upload status). */
export interface UploadStatus {
  status: "processing" | "completed" | "failed";
  statusMessage: string;
}

export interface SearchAnswer {
  total: number;
  results: Item[];
}

export interface SpatialReference {
  wkid?: number;
  latestWkid?: number;
  wkt?: string;
}

export interface Extent {
  xmin: number;
  ymin: number;
  xmax: number;
  ymax: number;
  spatialReference?: SpatialReference;
}

export interface ServiceInfo {
  name: string;
  extent: Extent;
  spatialReference: SpatialReference;
  minValues?: number[];
  maxValues?: number[];
  hasMultidimensions?: boolean;
  variableNames?: string[];
  bandNames?: string[];
  /** Cell size in the service's units: the grid's columns are the extent's width over pixelSizeX. */
  pixelSizeX?: number;
  pixelSizeY?: number;
  maxImageWidth?: number;
  maxImageHeight?: number;
}

export interface Dimension {
  name: string;
  description?: string;
  unit?: string;
  values: number[];
}

export interface VariableStatistics {
  min: number;
  max: number;
  mean?: number;
  standardDeviation?: number;
}

export interface Variable {
  name: string;
  description?: string;
  unit?: string;
  dimensions: Dimension[];
  statistics?: VariableStatistics[];
  /** What made the variable, when an analysis did (see strataAttributes.ts). */
  attributes?: StrataAttributes;
}

/** How an anomaly variable was computed (GenerateMultidimensionalAnomaly). */
export interface AnomalyAttribute {
  method: string;
  calculationInterval: string;
  ignoreNoData?: boolean;
}

/** The model a trend variable holds (GenerateTrendRaster): its bands are the model's terms. */
export interface TrendAttribute {
  /** The dimension the trend was fitted along, e.g. "StdTime" (then Predict takes dates). */
  dimension: string;
  model: string;
  /** The names of the raster's bands, in band order (bandIds 0, 1, …), e.g. ["Slope", "Intercept", "RMSE"]. */
  bands?: string[];
  /** POLYNOMIAL: the order; HARMONIC: the number of sin/cos pairs and the cycle length in units of x. */
  order?: number;
  harmonics?: number;
  cycleLengthDays?: number;
  /** The unit of the fitted variable (the trend variable itself has none: its bands differ). */
  variableUnit?: string;
}

export interface StrataAttributes {
  "strata:anomaly"?: AnomalyAttribute;
  "strata:trend"?: TrendAttribute;
  "strata:prediction"?: unknown;
  [name: string]: unknown;
}

export interface MultidimensionalInfo {
  multidimensionalInfo: { variables: Variable[] };
}

export interface IdentifyAnswer {
  value?: string;
  dataSeries?: {
    value: (number | null)[];
    multidimensionalDefinition: { variableName: string; dimensionName: string; values: number[] }[];
  }[];
}

export type ParameterType = "esriGPParameterTypeRequired" | "esriGPParameterTypeOptional";

export interface TaskParameter {
  name: string;
  dataType: string;
  displayName: string;
  description: string;
  direction: string;
  defaultValue: string | number | boolean | null;
  parameterType: ParameterType;
  choiceList?: string[];
}

export interface TaskInfo {
  name: string;
  displayName: string;
  description: string;
  parameters: TaskParameter[];
}

export interface ToolsInfo {
  tasks: string[];
}

export type JobStatus =
  | "esriJobNew"
  | "esriJobSubmitted"
  | "esriJobWaiting"
  | "esriJobExecuting"
  | "esriJobSucceeded"
  | "esriJobFailed"
  | "esriJobTimedOut"
  | "esriJobCancelling"
  | "esriJobCancelled"
  | "esriJobDeleting"
  | "esriJobDeleted";

export interface JobSummary {
  jobId: string;
  jobStatus: JobStatus;
  submitted?: number;
  owner?: string;
}

export interface JobsPage {
  total: number;
  jobs: JobSummary[];
}

export interface JobMessage {
  type: string;
  description: string;
}

export interface JobInfo {
  jobId: string;
  jobStatus: JobStatus;
  progress?: { percentage?: number; message?: string };
  messages?: JobMessage[];
  results?: Record<string, { paramUrl: string }>;
  /** Times in epoch ms: sent, given to a worker, over (each once it happened). */
  submitted?: number;
  started?: number;
  finished?: number;
}

export interface JobResult {
  value: { url: string; itemId?: string };
}

export interface JobInput {
  value: unknown;
}

export interface SubmitAnswer {
  jobId: string;
  jobStatus: JobStatus;
}
