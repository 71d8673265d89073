// jsPsych's core (the trial timeline and the plugin interface), as one ES module that the study
// page (assets/web/study/) imports. The study's trials are its own plugins (study/plugins.js), so no
// stock plugin is bundled.
export { initJsPsych, ParameterType } from "jspsych";
